//! A static file server on 127.0.0.1: HTTP/1.1, one thread per connection,
//! `Content-Length` and `Connection: close`, files streamed from one folder (a query
//! string is ignored, and every request target is recorded). A path can be
//! given a [`Route`] that misbehaves instead, for the download failure tests.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How the server answers one path instead of serving its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `n` bytes of `x` without a `Content-Length` header (delimited by the close).
    Endless(u64),
    /// The file's headers and the first half of its body, then nothing: the connection
    /// stays open for a minute, so a client hangs mid-download.
    Stall,
    /// The file's headers, then its body one byte at a time with this pause between bytes:
    /// a server too slow to finish, that never stalls long.
    Trickle(Duration),
    /// This status, `Location` header (when given) and body, whatever the method.
    Respond {
        /// The status code.
        status: u16,
        /// A `Location` header.
        location: Option<String>,
        /// The body.
        body: Vec<u8>,
    },
}

/// One request as received: target, headers (names lower-cased) and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The method.
    pub method: String,
    /// `/path?query`.
    pub target: String,
    /// The headers in arrival order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body (read by `Content-Length`).
    pub body: Vec<u8>,
}

impl Received {
    /// The first value of header `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// A running server; its threads live until the process exits.
#[derive(Debug, Clone)]
pub struct Server {
    port: u16,
    routes: Arc<Mutex<BTreeMap<String, Route>>>,
    requests: Arc<Mutex<Vec<String>>>,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    /// Serves the files under `root`.
    pub fn start(root: &Path) -> io::Result<Server> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let routes: Arc<Mutex<BTreeMap<String, Route>>> = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let (root, shared, log) = (root.to_owned(), Arc::clone(&routes), Arc::clone(&requests));
        let full = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (root, routes, log) = (root.clone(), Arc::clone(&shared), Arc::clone(&log));
                let full = Arc::clone(&full);
                std::thread::spawn(move || {
                    let _ = serve(stream, &root, &routes, &log, &full);
                });
            }
        });
        Ok(Server { port, routes, requests, received })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of `path` (relative to the root).
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// Every request target so far (`/path?query`), in arrival order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Every request so far with its headers and body, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Serves every path from its file again.
    pub fn clear_routes(&self) {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// Answers `path` with `route` from now on.
    pub fn route(&self, path: &str, route: Route) {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner).insert(path.to_owned(), route);
    }
}

fn serve(
    mut stream: TcpStream,
    root: &Path,
    routes: &Mutex<BTreeMap<String, Route>>,
    requests: &Mutex<Vec<String>>,
    received: &Mutex<Vec<Received>>,
) -> io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let method = line.split_whitespace().next().unwrap_or("").to_owned();
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    requests.lock().unwrap_or_else(PoisonError::into_inner).push(target.clone());
    // The query names no file (a token, a channel): the path alone does.
    let path = target.split('?').next().unwrap_or("/").trim_start_matches('/').to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
        if let Some((name, value)) = header.trim_end().split_once(':') {
            headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length = headers.iter().find(|(n, _)| n == "content-length");
    let length = length.and_then(|(_, v)| v.parse::<u64>().ok()).unwrap_or(0);
    let mut body = Vec::new();
    (&mut reader).take(length.min(1 << 20)).read_to_end(&mut body)?;
    let request = Received { method, target: target.clone(), headers, body };
    received.lock().unwrap_or_else(PoisonError::into_inner).push(request);
    let route = routes.lock().unwrap_or_else(PoisonError::into_inner).get(&path).cloned();
    if let Some(Route::Respond { status, location, body }) = &route {
        let location = location.as_ref().map(|l| format!("Location: {l}\r\n")).unwrap_or_default();
        write!(
            stream,
            "HTTP/1.1 {status} X\r\n{location}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )?;
        stream.write_all(body)?;
        return stream.flush();
    }
    if let Some(Route::Endless(n)) = route {
        stream.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")?;
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0;
        while sent < n {
            stream.write_all(&chunk)?;
            sent += chunk.len() as u64;
        }
        return stream.flush();
    }
    let inside = Path::new(&path).components().all(|c| matches!(c, Component::Normal(_)));
    let file = if inside { File::open(root.join(&path)).ok() } else { None };
    let Some(mut file) = file else {
        stream.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )?;
        return stream.flush();
    };
    let len = file.metadata()?.len();
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nContent-Type: application/octet-stream\r\n\
         Connection: close\r\n\r\n"
    )?;
    if route == Some(Route::Stall) {
        io::copy(&mut (&mut file).take(len / 2), &mut stream)?;
        stream.flush()?;
        std::thread::sleep(Duration::from_secs(60));
        return Ok(());
    }
    if let Some(Route::Trickle(pause)) = route {
        let mut byte = [0u8; 1];
        while file.read(&mut byte)? == 1 {
            stream.write_all(&byte)?;
            stream.flush()?;
            std::thread::sleep(pause);
        }
        return Ok(());
    }
    io::copy(&mut file, &mut stream)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(server: &Server, path: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
        write!(stream, "GET /{path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        stream.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn serves_files_routes_and_refuses_escapes() {
        let root = std::env::temp_dir().join(format!("hooks-tests-http-{}", std::process::id()));
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::fs::write(root.join("d/a.txt"), "hello").unwrap();
        let server = Server::start(&root).unwrap();
        let ok = get(&server, "d/a.txt");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), "{ok}");
        assert!(ok.ends_with("\r\n\r\nhello"), "{ok}");
        assert!(get(&server, "d/missing").starts_with("HTTP/1.1 404"));
        assert!(get(&server, "d/../d/a.txt").starts_with("HTTP/1.1 404"));
        server.route("big", Route::Endless(3 * 64 * 1024));
        let big = get(&server, "big");
        assert_eq!(big.len() - big.find("\r\n\r\n").unwrap() - 4, 3 * 64 * 1024);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
