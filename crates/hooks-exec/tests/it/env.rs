//! A scrubbed environment reaches a real handler without any credential in it.

use std::ffi::OsString;

use hooks_core::output::Termination;
use hooks_exec::{EnvPolicy, run_process, scrub, strip_profile};

use crate::support::fake;

/// Names that are credentials by name (the reference's markers and ours).
const SECRET_NAMES: &[&str] = &[
    // The reference's markers: KEY, TOKEN, SECRET, PASSWORD, APIKEY.
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "TAVILY_API_KEY",
    "LANGSMITH_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID",
    "STRIPE_SECRET_KEY",
    "SSH_PRIVATE_KEY",
    "GPG_KEY",
    "MYAPIKEY",
    "ApiKey",
    "DEEPSEEK_APIKEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "NPM_TOKEN",
    "PYPI_TOKEN",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "SLACK_BOT_TOKEN",
    "AWS_SESSION_TOKEN",
    "CI_JOB_TOKEN",
    "VAULT_TOKEN",
    "DIGITALOCEAN_ACCESS_TOKEN",
    "CLOUDFLARE_API_TOKEN",
    "access_token",
    "CLIENT_SECRET",
    "JWT_SECRET",
    "SECRET",
    "DJANGO_SECRET",
    "AZURE_CLIENT_SECRET",
    "PGPASSWORD",
    "MYSQL_ROOT_PASSWORD",
    "POSTGRES_PASSWORD",
    "REDIS_PASSWORD",
    "password",
    // Ours.
    "MYSQL_PWD",
    "SMTP_PASS",
    "DB_PW",
    "LDAP_PASSWD",
    "SSH_PASSPHRASE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_CREDS",
    "DOCKER_AUTH_CONFIG",
    "HTTP_AUTHORIZATION",
    "BASIC_AUTH",
    "OAUTH_CLIENT",
    "SSH_AUTH_SOCK",
    "NPM_CONFIG__AUTH",
    "SESSION_COOKIE",
    "BW_SESSION",
    "OP_SESSION_my",
    "WEBHOOK_SIGNATURE",
    "PRIVATE_REGISTRY",
    "SENTRY_DSN",
    "AZURE_STORAGE_CONNECTION_STRING",
    "DB_CONN_STR",
    "GITLAB_PAT",
    // Found reaching handlers by an attack campaign.
    "SLACK_WEBHOOK_URL",
    "DISCORD_WEBHOOK_URL",
    "TEAMS_WEBHOOK_URL",
    "TWITTER_BEARER",
    "X_BEARER",
    "WALLET_MNEMONIC",
    "SEED_PHRASE",
    "TOTP_SEED",
    "DBPASS",
    "DB_CRED",
    "CI_JOB_JWT",
    "CI_JOB_JWT_V2",
    // Secret-scanner families (gitleaks rules, trufflehog detectors) as variables.
    "GOOGLE_CHAT_WEBHOOK",
    "MATTERMOST_WEBHOOK",
    "ZAPIER_WEBHOOK_URL",
    "WEBHOOK_URL",
    "TWITTER_BEARER_TOKEN",
    "TWITTER_CONSUMER_SECRET",
    "TWITTER_ACCESS_TOKEN_SECRET",
    "BEARER",
    "API_BEARER",
    "ETH_MNEMONIC",
    "MNEMONIC",
    "BIP39_SEEDPHRASE",
    "RECOVERY_PHRASE",
    "TOTP",
    "MFA_TOTP",
    "OTP_SEED",
    "GITHUB_OTP",
    "APP_PASSCODE",
    "HMAC",
    "WEBHOOK_HMAC",
    "DBPASSWORD",
    "MONGO_DBPASS",
    "GCP_CRED",
    "GITLAB_OIDC_JWT",
    "ID_JWT",
    "HASH_SALT",
    "AZURE_STORAGE_SAS",
    "BLOB_SAS",
    "VAULT_ROLE_SEED",
    "TWILIO_AUTH_TOKEN",
    "TWILIO_API_SECRET",
    "SENDGRID_API_KEY",
    "MAILGUN_API_KEY",
    "MAILCHIMP_API_KEY",
    "POSTMARK_SERVER_TOKEN",
    "MANDRILL_APIKEY",
    "DATADOG_API_KEY",
    "DD_APP_KEY",
    "NEW_RELIC_LICENSE_KEY",
    "HONEYCOMB_WRITEKEY",
    "ROLLBAR_ACCESS_TOKEN",
    "BUGSNAG_API_KEY",
    "PAGERDUTY_TOKEN",
    "OPSGENIE_API_KEY",
    "GRAFANA_SERVICE_ACCOUNT_TOKEN",
    "GRAFANA_CLOUD_API_KEY",
    "SENTRY_AUTH_TOKEN",
    "HEROKU_API_KEY",
    "NETLIFY_AUTH_TOKEN",
    "VERCEL_TOKEN",
    "FLY_API_TOKEN",
    "RENDER_API_KEY",
    "RAILWAY_TOKEN",
    "SUPABASE_SERVICE_ROLE_KEY",
    "FIREBASE_TOKEN",
    "PLANETSCALE_SERVICE_TOKEN",
    "NEON_API_KEY",
    "DOPPLER_TOKEN",
    "INFISICAL_TOKEN",
    "OP_SERVICE_ACCOUNT_TOKEN",
    "OP_CONNECT_TOKEN",
    "BWS_ACCESS_TOKEN",
    "VAULT_UNSEAL_KEY",
    "CONSUL_HTTP_TOKEN",
    "NOMAD_TOKEN",
    "TF_TOKEN_app_terraform_io",
    "TFE_TOKEN",
    "PULUMI_ACCESS_TOKEN",
    "ATLAS_TOKEN",
    "SPACELIFT_API_KEY_SECRET",
    "AZURE_DEVOPS_EXT_PAT",
    "ADO_PAT",
    "BITBUCKET_APP_PASSWORD",
    "BITBUCKET_PASS",
    "JIRA_API_TOKEN",
    "CONFLUENCE_API_TOKEN",
    "ATLASSIAN_TOKEN",
    "LINEAR_API_KEY",
    "NOTION_TOKEN",
    "NOTION_API_KEY",
    "FIGMA_TOKEN",
    "ASANA_ACCESS_TOKEN",
    "TRELLO_KEY",
    "TRELLO_TOKEN",
    "MONDAY_API_TOKEN",
    "CLICKUP_API_KEY",
    "AIRTABLE_API_KEY",
    "AIRTABLE_PAT",
    "HUBSPOT_ACCESS_TOKEN",
    "SALESFORCE_CLIENT_SECRET",
    "ZENDESK_API_TOKEN",
    "INTERCOM_ACCESS_TOKEN",
    "SHOPIFY_ACCESS_TOKEN",
    "SHOPIFY_API_SECRET",
    "SQUARE_ACCESS_TOKEN",
    "PAYPAL_CLIENT_SECRET",
    "BRAINTREE_PRIVATE_KEY",
    "ADYEN_API_KEY",
    "PLAID_SECRET",
    "COINBASE_API_SECRET",
    "BINANCE_SECRET",
    "ETHERSCAN_API_KEY",
    "INFURA_PROJECT_SECRET",
    "ALCHEMY_API_KEY",
    "PRIVATE_KEY",
    "DEPLOYER_PRIVATE_KEY",
    "GROQ_API_KEY",
    "REPLICATE_API_TOKEN",
    "PERPLEXITY_API_KEY",
    "XAI_API_KEY",
    "COHERE_API_KEY",
    "TOGETHER_API_KEY",
    "FIREWORKS_API_KEY",
    "OPENROUTER_API_KEY",
    "VOYAGE_API_KEY",
    "PINECONE_API_KEY",
    "WEAVIATE_API_KEY",
    "QDRANT_API_KEY",
    "ELEVENLABS_API_KEY",
    "DEEPGRAM_API_KEY",
    "ASSEMBLYAI_API_KEY",
    "STABILITY_API_KEY",
    "WANDB_API_KEY",
    "COMET_API_KEY",
    "NEPTUNE_API_TOKEN",
    "KAGGLE_KEY",
    "SERPAPI_API_KEY",
    "BRAVE_API_KEY",
    "EXA_API_KEY",
    "FIRECRAWL_API_KEY",
    "BROWSERBASE_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGFUSE_SECRET_KEY",
    "HELICONE_API_KEY",
    "DOCKER_PASSWORD",
    "DOCKERHUB_TOKEN",
    "DOCKER_AUTH",
    "REGISTRY_PASSWORD",
    "QUAY_ROBOT_TOKEN",
    "GHCR_PAT",
    "ARTIFACTORY_API_KEY",
    "JFROG_ACCESS_TOKEN",
    "NEXUS_PASS",
    "SONAR_TOKEN",
    "SNYK_TOKEN",
    "CODECOV_TOKEN",
    "COVERALLS_REPO_TOKEN",
    "CIRCLE_TOKEN",
    "TRAVIS_API_TOKEN",
    "BUILDKITE_AGENT_TOKEN",
    "DRONE_TOKEN",
    "JENKINS_API_TOKEN",
    "JENKINS_PASSWORD",
    "TEAMCITY_PASS",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "GITHUB_APP_PRIVATE_KEY",
    "GH_ENTERPRISE_TOKEN",
    "GITEA_TOKEN",
    "CARGO_REGISTRY_TOKEN",
    "CARGO_REGISTRIES_CORP_TOKEN",
    "TWINE_PASSWORD",
    "POETRY_PYPI_TOKEN_PYPI",
    "UV_PUBLISH_PASSWORD",
    "GEM_HOST_API_KEY",
    "NUGET_API_KEY",
    "COCOAPODS_TRUNK_TOKEN",
    "HEX_API_KEY",
    "YARN_NPM_AUTH_TOKEN",
    "NODE_AUTH_TOKEN",
    "AWS_SECRET_KEY",
    "AWS_SESSION_CREDENTIALS",
    "AZURE_CLIENT_CERTIFICATE_PASSWORD",
    "ARM_CLIENT_SECRET",
    "ARM_ACCESS_KEY",
    "GOOGLE_CLIENT_SECRET",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
    "GCLOUD_AUTH_ACCESS_TOKEN",
    "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE",
    "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
    "TENCENTCLOUD_SECRET_KEY",
    "OCI_CLI_KEY_CONTENT",
    "IBMCLOUD_API_KEY",
    "LINODE_TOKEN",
    "VULTR_API_KEY",
    "HCLOUD_TOKEN",
    "SCW_SECRET_KEY",
    "OVH_APPLICATION_SECRET",
    "CLOUDFLARE_API_KEY",
    "CF_API_TOKEN",
    "FASTLY_API_TOKEN",
    "AKAMAI_CLIENT_SECRET",
    "NGROK_AUTHTOKEN",
    "TAILSCALE_AUTHKEY",
    "TS_AUTHKEY",
    "ZEROTIER_API_TOKEN",
    "OPENVPN_PASSWORD",
    "WIREGUARD_PRIVATE_KEY",
    "KUBE_TOKEN",
    "K8S_SA_TOKEN",
    "HELM_REPO_PASSWORD",
    "ARGOCD_AUTH_TOKEN",
    "RABBITMQ_DEFAULT_PASS",
    "AMQP_PASSWORD",
    "KAFKA_SASL_PASSWORD",
    "MONGO_INITDB_ROOT_PASSWORD",
    "MONGODB_PWD",
    "ELASTIC_PASSWORD",
    "OPENSEARCH_INITIAL_ADMIN_PASSWORD",
    "CLICKHOUSE_PASSWORD",
    "SNOWFLAKE_PASSWORD",
    "SNOWFLAKE_PRIVATE_KEY_PASSPHRASE",
    "DATABRICKS_TOKEN",
    "BIGQUERY_CREDENTIALS",
    "REDSHIFT_PASS",
    "MSSQL_SA_PASSWORD",
    "ORACLE_PWD",
    "MINIO_ROOT_PASSWORD",
    "MINIO_SECRET_KEY",
    "S3_SECRET",
    "SMTP_PASSWORD",
    "EMAIL_HOST_PASSWORD",
    "MAIL_PASS",
    "IMAP_PASSWD",
    "LDAP_BIND_PW",
    "KEYCLOAK_ADMIN_PASSWORD",
    "AUTH0_CLIENT_SECRET",
    "OKTA_API_TOKEN",
    "NEXTAUTH_SECRET",
    "SESSION_SECRET",
    "COOKIE_SIGNING_KEY",
    "RAILS_MASTER_KEY",
    "SECRET_KEY_BASE",
    "LARAVEL_APP_KEY",
    "ENCRYPTION_KEY",
    "MASTER_KEY",
    "SIGNING_KEY",
    "ANDROID_KEYSTORE_PASSWORD",
    "MATCH_PASSWORD",
    "FASTLANE_PASSWORD",
    "APPLE_APP_SPECIFIC_PASSWORD",
    "APP_STORE_CONNECT_API_KEY",
    "EXPO_TOKEN",
    "PUSHER_APP_SECRET",
    "ABLY_API_KEY",
    "TELEGRAM_BOT_TOKEN",
    "DISCORD_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "TEAMS_APP_PASSWORD",
    "MICROSOFT_APP_PASSWORD",
    "ZOOM_CLIENT_SECRET",
    "SPOTIFY_CLIENT_SECRET",
    "YOUTUBE_API_KEY",
    "MAPBOX_ACCESS_TOKEN",
    "GOOGLE_MAPS_API_KEY",
    "ALGOLIA_ADMIN_KEY",
    "MEILI_MASTER_KEY",
    "TYPESENSE_API_KEY",
    "CONTENTFUL_MANAGEMENT_TOKEN",
    "SANITY_AUTH_TOKEN",
    "STRAPI_ADMIN_JWT_SECRET",
    "GHOST_ADMIN_API_KEY",
    "WORDPRESS_AUTH_SALT",
    "WP_NONCE_SALT",
];

/// Credentials under innocent names: caught by their values.
const SECRET_VALUES: &[(&str, &str)] = &[
    ("DATABASE_URL", "postgres://app:Sup3rS3cret@db.internal:5432/app"),
    ("REDIS_URL", "redis://:hunter2hunter2@cache:6379/0"),
    ("HTTPS_PROXY", "http://me:proxy-pass@proxy.corp:8080"),
    ("UPSTREAM", "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"),
    ("GH_EXTRA", "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJ"),
    ("OPENAI", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"),
    ("CLAUDE", "sk-ant-api03-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"),
    ("SLACK", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("AWS_ID", "AKIAIOSFODNN7EXAMPLE"),
    ("GCP", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("GITLAB", "glpat-xY9zA8bC7dE6fG5hI4jK"),
    ("NPMRC_LINE", "//registry.npmjs.org/:_authToken=npm_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"),
    ("IDENTITY", "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLWJ5dGVz"),
    (
        "DEPLOY",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    ),
    ("SQLSERVER", "Server=db;Database=app;User Id=sa;Password=Hunter2!x;"),
    ("HEADER", "Bearer abcdefghijklmnopqrstuvwxyz012345"),
    ("STRIPE", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    // Found reaching handlers by an attack campaign.
    ("NOTIFY", "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/aBcDeFgHiJkLmNoPqRsTuVwX"),
    ("CHAT", "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOpQrStUv"),
    (
        "ALERTS",
        "https://contoso.webhook.office.com/webhookb2/1a2b3c4d-0000-1111@e5f6/IncomingWebhook/abc/def",
    ),
    ("VAULT", "hvs.CAESIJ1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"),
    ("AGE_ID", "AGE-SECRET-KEY-1QQPQ8E3L5ZQ9XJ7K6Y2W4V8N0M3R5T7U9P2S4D6F8G0H2J4K6L8Z"),
    ("DEPLOY_T", "gldt-Ab1Cd2Ef3Gh4Ij5Kl6Mn"),
    ("RUNNER", "glrt-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op"),
    ("TRIGGER", "glptt-0123456789abcdef0123456789abcdef01234567"),
    ("GROQ", "gsk_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh"),
    ("REPLICATE", "r8_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"),
    ("PPLX", "pplx-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5"),
    ("GROK", "xai-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6"),
    ("HOOK_VERIFY", "whsec_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"),
    ("MAILGUN", "key-0123456789abcdef0123456789abcdef"),
    ("OAUTH_CLIENT_S", "GOCSPX-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9"),
    ("DO_OAUTH", "doo_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
    ("ATLASSIAN", "ATATT3xFfGF0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3=0123ABCD"),
    ("PULUMI", "pul-0123456789abcdef0123456789abcdef01234567"),
    ("NPMRC", "//registry.npmjs.org/:_authToken=0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"),
    ("CALLBACK", "https://api.example.com/v1/items?access_token=abc123def456"),
    ("BLOB", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sig=Zm9vYmFy%3D"),
    ("DB_OPTS", "--user=app --password=Hunter2Hunter2 --host=db"),
    ("MAVEN_OPTS", "-Xmx2g -Dhttp.proxyPassword=Hunter2Hunter2"),
    ("LEGACY", "host=db user=app passwd=Hunter2Hunter2"),
    ("NETRC_LINE", "machine api.example.com login app password Hunter2Hunter2"),
    (
        "DOCKER_CFG",
        r#"{"auths":{"https://index.docker.io/v1/":{"auth":"YXBwOkh1bnRlcjJIdW50ZXIy"}}}"#,
    ),
    // Secret-scanner families (gitleaks rules, trufflehog detectors).
    ("CHAT2", "https://discordapp.com/api/webhooks/123456789012345678/ZyXwVuT-SrQpOn_MlKjIhG"),
    ("TEAMS_OLD", "https://outlook.office.com/webhook/1a2b3c4d-5e6f/IncomingWebhook/0a1b/2c3d"),
    ("ZAP", "https://hooks.zapier.com/hooks/catch/123456/abcdef/"),
    ("GCHAT", "https://chat.googleapis.com/v1/spaces/AAAA1234/messages?key=AIzaX&token=abcd"),
    ("TG", "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage"),
    ("SLACK_WF", "https://hooks.slack.com/workflows/T0123ABCD/A0456EFGH/1234567890/aBcDeFgHiJ"),
    ("VAULT_BATCH", "hvb.AAAAAQJ1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ"),
    ("OAUTH_APP", "gloas-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
    ("GRAFANA", "glsa_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv_0123abcd"),
    ("GRAFANA_CLOUD", "glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrIiwiayI6IkFiMUNkMkVmM0doNCJ9"),
    ("DO_REFRESH", "dor_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
    ("SENTRY_ORG", "sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ"),
    ("LINEAR", "lin_api_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3A"),
    ("POSTMAN", "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01"),
    ("GEMS", "rubygems_0123456789abcdef0123456789abcdef0123456789abcdef"),
    ("PSCALE", "pscale_tkn_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"),
    ("DOPPLER", "dp.pt.Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4"),
    ("FIGMA", "figd_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"),
    ("NOTION", "ntn_0123456789Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv"),
    ("OP_SA", "ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSJ9Ab1Cd2Ef3Gh4"),
    ("SQUARE", "sq0atp-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op"),
    ("DATABRICKS", "dapi0123456789abcdef0123456789abcdef"),
    ("ALIYUN", "LTAI5tAb1Cd2Ef3Gh4Ij5Kl6"),
    ("SHOPIFY_APP", "shpua_0123456789abcdef0123456789abcdef"),
    ("REFRESH_URL", "https://oauth.example.com/cb?refresh_token=Zm9vYmFyYmF6&state=1"),
    ("GITLAB_API", "https://gitlab.example.com/api/v4/projects?private_token=Ab1Cd2Ef3Gh4"),
    ("JAVA_TOOL_OPTIONS", "-Djavax.net.ssl.keyStorePassword=changeit-not-really"),
    ("PSQL_CMD", "pgcli --password Hunter2Hunter2 app"),
    (
        "SA_JSON",
        r#"{"type": "service_account", "private_key": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"}"#,
    ),
    ("CRED_HELPER", r#"{"Username": "app", "Secret": "Hunter2Hunter2"}"#),
    ("TOKEN_JSON", r#"{"access_token": "ya29-not-a-real-prefix", "expires_in": 3599}"#),
    ("NPM_AUTH_LINE", "//npm.pkg.github.com/:_auth=YXBwOkh1bnRlcjJIdW50ZXIy"),
    ("SLACK_TRIGGER", "https://hooks.slack.com/triggers/T0123ABCD/4567890/abcdef0123456789"),
    ("VAULT_RECOVERY", "hvr.Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St"),
    ("CI_BUILD", "glcbt-64_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op"),
    ("SENTRY_USER", "sntryu_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
    ("PSCALE_PW", "pscale_pw_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1"),
    ("SQUARE_APP", "sq0csp-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4"),
    ("DOPPLER_SVC", "dp.st.dev.Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"),
    ("REDIRECT", "https://app.example.com/cb?state=x&id_token=abcdef0123"),
];

/// Ordinary variables every handler must still get, with their exact values.
const BENIGN: &[(&str, &str)] = &[
    ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/bin:/bin:/opt/sk-tools/bin"),
    ("HOME", "/home/dev"),
    ("LANG", "en_US.UTF-8"),
    ("LC_ALL", "sk_SK.UTF-8"),
    ("TERM", "xterm-256color"),
    ("USER", "dev"),
    ("LOGNAME", "dev"),
    ("SHELL", "/bin/bash"),
    ("TMPDIR", "/tmp"),
    ("PWD", "/home/dev/project"),
    ("OLDPWD", "/home/dev"),
    ("EDITOR", "vim"),
    ("VISUAL", "code --wait"),
    ("PAGER", "less -R"),
    ("HOSTNAME", "devbox"),
    ("DISPLAY", ":0"),
    ("COLORTERM", "truecolor"),
    ("XDG_RUNTIME_DIR", "/run/user/1000"),
    ("XDG_SESSION_TYPE", "wayland"),
    ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
    ("GIT_AUTHOR_NAME", "Dev Eloper"),
    ("GIT_AUTHOR_EMAIL", "dev@example.com"),
    ("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"),
    ("NODE_EXTRA_CA_CERTS", "/etc/ssl/corp.pem"),
    ("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:*.tar=01;31"),
    ("NO_PROXY", "localhost,127.0.0.1,.corp"),
    ("HTTP_PROXY", "http://proxy.corp:8080"),
    ("REDIS_HOST", "cache.internal"),
    ("APP_DB_URL", "postgres://localhost:5432/app"),
    ("CARGO_HOME", "/home/dev/.cargo"),
    ("VIRTUAL_ENV", "/home/dev/project/.venv"),
    ("GIT_COMMIT", "0123456789abcdef0123456789abcdef01234567"),
    ("NIX_PROFILE", "/nix/store/9krlzvny65gdc8s7kpb6lkx8cd02c25b-hello-2.12"),
    // Near misses of the newer rules.
    ("BUILD_ID", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
    ("GIT_SHA", "9fceb02d0ae598e95dc970b74767f19372d61af8"),
    ("DOCS_URL", "https://api.slack.com/messaging/webhooks"),
    ("HOOKS_DIR", "/home/dev/project/.git/hooks"),
    ("CONFIG_JSON", r#"{"theme": "dark", "tokens": 3, "auth_method": "sso"}"#),
    ("PROMPT_HINT", "type your password when asked"),
    ("BINDINGS", "key-bindings-emacs-style-navigation-for-shell"),
    ("CURL_OPTS", "--retry 3 --max-time 10"),
    ("JAVA_OPTS", "-Xmx2g -Dfile.encoding=UTF-8 -Duser.timezone=UTC"),
    ("SEARCH_URL", "https://example.com/search?q=sig&lang=en"),
    ("PYTHONHASHSEED", "0"),
    ("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/"),
    ("GIT_SSH_COMMAND", "ssh -o StrictHostKeyChecking=accept-new"),
];

fn host_environment(allowed_secret: (&str, &str)) -> Vec<(OsString, OsString)> {
    let mut vars = Vec::new();
    for (i, name) in SECRET_NAMES.iter().enumerate() {
        vars.push(((*name).into(), format!("name-secret-{i:03}").into()));
    }
    for (name, value) in SECRET_VALUES.iter().chain(BENIGN) {
        vars.push(((*name).into(), (*value).into()));
    }
    vars.push((allowed_secret.0.into(), allowed_secret.1.into()));
    vars
}

/// Parses `--print-env` output into (name, value) pairs (values may span lines).
fn parse_env(output: &str) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = Vec::new();
    for line in output.lines() {
        match line.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                vars.push((name.to_owned(), value.to_owned()));
            }
            _ => {
                if let Some(last) = vars.last_mut() {
                    last.1.push('\n');
                    last.1.push_str(line);
                }
            }
        }
    }
    vars
}

#[tokio::test]
async fn no_credential_reaches_the_handler() {
    assert!(SECRET_NAMES.len() >= 250, "{}", SECRET_NAMES.len());
    assert!(SECRET_VALUES.len() >= 80, "{}", SECRET_VALUES.len());
    let allowed = ("DEPLOY_TOKEN", "ghp_Allowed0Allowed1Allowed2Allowed3Allo");
    let policy = EnvPolicy::allowing([allowed.0]);
    let mut spec = fake(&["--print-env"]);
    spec.env = scrub(host_environment(allowed), &policy).into();

    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    assert!(!out.stdout_truncated);
    let text = String::from_utf8(out.stdout).unwrap();
    let seen = parse_env(&text);
    let names: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();

    for name in SECRET_NAMES {
        assert!(!names.contains(name), "{name} reached the handler");
    }
    assert!(!text.contains("name-secret-"), "a name-stripped value leaked:\n{text}");
    for (name, value) in SECRET_VALUES {
        assert!(!names.contains(name), "{name} reached the handler");
        let first_line = value.lines().next().unwrap();
        assert!(!text.contains(first_line), "the value of {name} leaked");
    }
    for (name, value) in BENIGN {
        let got = seen.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(got, Some(*value), "{name} did not arrive intact");
    }
    let got = seen.iter().find(|(n, _)| n == allowed.0).map(|(_, v)| v.as_str());
    assert_eq!(got, Some(allowed.1), "the allow-listed secret must arrive");
    assert_eq!(seen.len(), BENIGN.len() + 1, "unexpected variables: {names:?}");
}

#[tokio::test]
async fn the_handler_gets_exactly_the_given_environment() {
    let mut spec = fake(&["--print-env"]);
    spec.env = vec![("ONLY".into(), "this".into()), ("AND".into(), "that".into())].into();
    let out = run_process(&spec, b"").await;
    assert_eq!(out.termination, Termination::Exited(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["AND=that", "ONLY=this"]);
}

/// docs/claude-code-contract.md#cc-10.1: claude-code also strips `OTEL_*` (allow-listed or not)
/// before a real handler sees the environment; deepagents keeps them.
#[tokio::test]
async fn claude_code_strips_telemetry_settings_deepagents_keeps_them() {
    let vars: Vec<(OsString, OsString)> = [
        ("PATH", "/usr/bin:/bin"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
        ("OTEL_RESOURCE_ATTRIBUTES", "service.name=agent"),
        ("NOT_OTEL_X", "kept"),
    ]
    .map(|(k, v)| (OsString::from(k), OsString::from(v)))
    .into();
    let policy = EnvPolicy::allowing(["OTEL_RESOURCE_ATTRIBUTES"]);
    for (profile, expect_otel) in
        [(hooks_core::Profile::ClaudeCode, false), (hooks_core::Profile::DeepAgents, true)]
    {
        let mut env = scrub(vars.clone(), &policy);
        strip_profile(&mut env, profile);
        let mut spec = fake(&["--print-env"]);
        spec.env = env.into();
        let out = run_process(&spec, b"{}").await;
        assert_eq!(out.termination, Termination::Exited(0));
        let printed = String::from_utf8(out.stdout).unwrap();
        assert_eq!(printed.contains("OTEL_EXPORTER_OTLP_ENDPOINT="), expect_otel, "{printed}");
        assert_eq!(printed.contains("OTEL_RESOURCE_ATTRIBUTES="), expect_otel, "{printed}");
        assert!(printed.contains("NOT_OTEL_X=kept"), "{printed}");
    }
}
