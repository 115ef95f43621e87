"""Per-token request rate limit (server/rate_limit.h): a burst beyond rate_burst gets 429
rate_limited with Retry-After and the JSON envelope; another token, and the routes without a
token, are not held back by it; after Retry-After the token is served again, at rate_limit.
The limit here: 20 requests per second, bursts of 10."""
import http.client
import json
import time

from dtserver import run, started, validate

RATE, BURST = 20, 10


def burst(d, token, n, path="/v1/health"):
    """n requests back to back on one keep-alive connection: the statuses and the first 429."""
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
    h = {"Authorization": "Bearer " + token} if token else {}
    statuses, first = [], None
    t0 = time.time()
    for _ in range(n):
        c.request("GET", path, headers=h)
        r = c.getresponse()
        body = r.read()
        statuses.append(r.status)
        if r.status == 429 and first is None:
            first = (dict((k.lower(), v) for k, v in r.getheaders()), body)
    c.close()
    return statuses, first, time.time() - t0


def main(binary):
    with started(binary, {"DUCTILED_RATE_LIMIT": str(RATE), "DUCTILED_RATE_BURST": str(BURST)}) as d:
        time.sleep(BURST / RATE + 0.2)  # start-up polled the token: let its bucket fill again
        statuses, first, took = burst(d, d.token, 40)
        ok = statuses.count(200)
        assert statuses.count(429) + ok == len(statuses), statuses
        assert BURST <= ok <= BURST + RATE * took + 1, (ok, took, statuses)
        assert statuses[:BURST] == [200] * BURST, statuses
        headers, body = first
        doc = json.loads(body)
        validate(doc, {"$ref": "#/components/schemas/Error"}, "429")
        assert doc["error"]["code"] == "rate_limited", doc
        wait = int(headers["retry-after"])
        assert wait >= 1 and doc["error"]["details"] == {"rate_limit": RATE, "rate_burst": BURST, "retry_after": wait}, doc
        assert headers["content-type"].startswith("application/json") and headers.get("x-request-id"), headers

        # Another token is not held back, nor are the routes that take no token.
        out = d.cli("token", "create", "--name", "other")
        assert out.returncode == 0, out.stderr
        other = out.stdout.strip()
        assert d.request("GET", "/v1/health", token=other).status == 200
        statuses, _, _ = burst(d, None, 3 * BURST, "/metrics")
        assert statuses == [200] * (3 * BURST), statuses

        # After Retry-After the token is served again, at its rate: a request every 1/RATE s
        # is never refused.
        time.sleep(wait)
        assert d.request("GET", "/v1/health").status == 200
        time.sleep(BURST / RATE)
        c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        for _ in range(2 * RATE):
            c.request("GET", "/v1/health", headers={"Authorization": "Bearer " + d.token})
            r = c.getresponse()
            r.read()
            assert r.status == 200, r.status
            time.sleep(1.2 / RATE)
        c.close()
        print(f"burst of 40: {ok} served, then 429 with Retry-After {wait}; recovered at {RATE}/s")


if __name__ == "__main__":
    run(main)
