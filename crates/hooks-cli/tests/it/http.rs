//! A static file server on 127.0.0.1 for the plugin tests (as in hooks-plugins' tests),
//! with one extra behaviour: a path can stall half way through its body, so a test can
//! kill an install in the middle of a download.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Server {
    pub port: u16,
    /// Paths whose body stops after half its bytes (the connection stays open).
    pub stalled: Arc<Mutex<BTreeSet<String>>>,
}

impl Server {
    pub fn start(root: &Path) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stalled: Arc<Mutex<BTreeSet<String>>> = Arc::default();
        let root = root.to_owned();
        let s2 = stalled.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (root, stalled) = (root.clone(), s2.clone());
                std::thread::spawn(move || serve(stream, &root, &stalled));
            }
        });
        Server { port, stalled }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

fn serve(mut stream: TcpStream, root: &Path, stalled: &Mutex<BTreeSet<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_owned();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
    }
    let Ok(body) = fs::read(root.join(&path)) else {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if stalled.lock().unwrap().contains(&path) {
        let _ = stream.write_all(&body[..body.len() / 2]);
        let _ = stream.flush();
        // Hold the connection until the client goes away.
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let _ = stream.write_all(&body);
}
