//! A static file server on 127.0.0.1 for the download rows: HTTP/1.1, one thread per
//! connection, `Content-Length` and `Connection: close`, files read from one folder.

use std::fs::File;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// A running server; its thread lives until the process exits.
pub struct Server {
    port: u16,
}

impl Server {
    /// Serves the files of `root`.
    pub fn start(root: &Path) -> std::io::Result<Server> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let root = root.to_owned();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let root = root.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &root);
                });
            }
        });
        Ok(Server { port })
    }

    /// The URL of `path` (relative to the root).
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

fn serve(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/');
    let file: PathBuf = root.join(path);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
    }
    match File::open(&file) {
        Ok(mut f) if !path.contains("..") => {
            let len = f.metadata()?.len();
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
            )?;
            std::io::copy(&mut f, &mut stream)?;
        }
        _ => {
            stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )?;
        }
    }
    stream.flush()
}
