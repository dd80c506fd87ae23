"""``-f https://...``: a file read from a URL, as kubectl reads one (cli-runtime resource/visitor.go).

kubectl's builder takes a ``-f`` value that starts with ``http://`` or ``https://`` as a URL, GETs it (three
attempts, a second apart, retrying connection errors and 5xx answers: readHttpWithRetries) and reads what a
200 answer holds as it reads a file. Proxies come from the environment (HTTPS_PROXY, NO_PROXY), as Go's client
takes them; certificates are verified.
"""

from __future__ import annotations

import time

from dractl.errors import InputError

#: readHttpWithRetries's attempts and the wait between them (kubectl: 3, one second)
ATTEMPTS = 3
WAIT = 1.0
#: seconds to connect and between bytes
TIMEOUT = 30.0


def is_url(path: str) -> bool:
    """Whether ``-f`` takes ``path`` as a URL (cli-runtime Builder.FilenameParam)."""
    return path.startswith(("http://", "https://"))


def fetch(url: str, limit: int) -> bytes:
    """The body of a 200 answer to GET ``url`` (at most ``limit`` bytes); InputError, in kubectl's words, if none."""
    import urllib.error
    import urllib.request

    error = ""
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(WAIT)
        try:
            req = urllib.request.Request(url, headers={"User-Agent": "dractl"})
            with urllib.request.urlopen(req, timeout=TIMEOUT) as r:  # noqa: S310 - http(s) only (is_url)
                if r.status != 200:  # (another 2xx)
                    error = f'unable to read URL "{url}", server reported {r.status} {r.reason}, status code={r.status}'
                    break
                data = r.read(limit + 1)
        except urllib.error.HTTPError as e:
            error = f'unable to read URL "{url}", server reported {e.code} {e.reason}, status code={e.code}'
            if 500 <= e.code < 600:
                continue  # retried, as kubectl retries server errors
            break
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", None) or e
            error = f"cannot read: {getattr(reason, 'strerror', None) or reason}"
            continue
        if len(data) > limit:
            raise InputError(f"{url}: file too large (more than {limit} bytes)")
        return data
    raise InputError(f"{url}: {error}")
