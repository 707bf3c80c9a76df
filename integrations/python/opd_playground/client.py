"""A small JSON client for `npm run serve` (stdlib only: http.client, json).

One persistent HTTP/1.1 connection per thread; a connection the server closed while idle is reopened once. A refusal
(status >= 400) raises `ServerError` with the server's message, which names the field and the fix.
"""

import http.client
import json
import threading
import urllib.parse


class ServerError(RuntimeError):
    """A refusal of the server: `status` (HTTP) and `message` (the server's `error`)."""

    def __init__(self, status, message):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class Client:
    """JSON requests to a server at `base_url` (e.g. "http://127.0.0.1:8700"); `timeout` in seconds."""

    def __init__(self, base_url, timeout=60.0):
        url = urllib.parse.urlsplit(base_url)
        if url.scheme != "http" or not url.hostname:
            raise ValueError(f"base_url must be http://host:port, got {base_url!r}")
        self.host, self.port, self.timeout = url.hostname, url.port or 80, timeout
        self._local = threading.local()

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def request(self, method, path, body=None):
        """Send one request; return the reply's JSON value. Raises ServerError on a refusal."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"content-type": "application/json"} if data is not None else {}
        for attempt in (0, 1):
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=headers)
                reply = conn.getresponse()
                raw = reply.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                self._local.conn = None  # the server closed an idle connection: open a new one once
                if attempt:
                    raise
        value = json.loads(raw) if raw else None
        if reply.status >= 400:
            message = value.get("error") if isinstance(value, dict) else raw.decode("utf-8", "replace")
            raise ServerError(reply.status, message)
        return value

    def post(self, path, body):
        """POST `body` as JSON to `path`."""
        return self.request("POST", path, body)

    def get(self, path, **query):
        """GET `path` with `query` parameters."""
        return self.request("GET", path + ("?" + urllib.parse.urlencode(query) if query else ""))

    def close(self):
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
