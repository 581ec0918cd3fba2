import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { WorkflowError } from "./index.js";
import { run, runError } from "./test-support.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const routes = new Map<string, Handler>();
const received: Received[] = [];
let server: Server;
let base: string;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const handler = routes.get(new URL(req.url ?? "/", "http://x").pathname);
      if (handler) handler(req, res, body);
      else json(res, 500, { error: "no route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function lastRequest(): Received {
  const last = received[received.length - 1];
  assert.ok(last, "the server received no request");
  return last;
}

describe("http calls against a local server", () => {
  it("GETs with query parameters and parses a JSON response", async () => {
    routes.set("/items", (_req, res) => json(res, 200, { items: [1, 2], ratio: 0.5 }));
    const result = await run(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.base + "/items"}
          query:
            limit: 10
            tag: ["a", "b"]
            q: "x y"
        result: r
    - out:
        return:
          code: \${r.code}
          body: \${r.body}
          type: \${r.headers["content-type"]}
`,
      { base },
    );
    assert.deepEqual(result, { code: 200, body: { items: [1, 2], ratio: 0.5 }, type: "application/json" });
    assert.equal(lastRequest().method, "GET");
    assert.equal(lastRequest().url, "/items?limit=10&tag=a&tag=b&q=x+y");
  });

  it("POSTs a map body JSON-encoded with a JSON content type, plus custom headers", async () => {
    routes.set("/create", (_req, res, body) => json(res, 201, { echoed: JSON.parse(body) }));
    const result = await run(
      `
main:
  params: [args]
  steps:
    - post:
        call: http.post
        args:
          url: \${args.base + "/create"}
          headers:
            X-Trace: abc
          body:
            name: ferret
            count: 2
            ratio: 1.5
            nested: {ok: true}
        result: r
    - out:
        return: \${r}
`,
      { base },
    );
    const request = lastRequest();
    assert.equal(request.headers["content-type"], "application/json; charset=utf-8");
    assert.equal(request.headers["x-trace"], "abc");
    assert.deepEqual(JSON.parse(request.body), {
      name: "ferret",
      count: 2,
      ratio: 1.5,
      nested: { ok: true },
    });
    assert.equal((result as { code: number }).code, 201);
    assert.deepEqual((result as { body: unknown }).body, {
      echoed: { name: "ferret", count: 2, ratio: 1.5, nested: { ok: true } },
    });
  });

  it("sends a string body as-is when the content type says text, and returns text responses as strings", async () => {
    routes.set("/text", (_req, res, body) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end(`got ${body}`);
    });
    const result = await run(
      `
main:
  params: [args]
  steps:
    - put:
        call: http.request
        args:
          method: PUT
          url: \${args.base + "/text"}
          headers:
            Content-Type: text/plain
          body: hello
        result: r
    - out:
        return: \${r.body}
`,
      { base },
    );
    assert.equal(lastRequest().method, "PUT");
    assert.equal(lastRequest().body, "hello");
    assert.equal(result, "got hello");
  });

  it("accepts OIDC auth and sends no Authorization header locally", async () => {
    routes.set("/secure", (_req, res) => json(res, 200, {}));
    await run(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.base + "/secure"}
          auth:
            type: OIDC
`,
      { base },
    );
    assert.equal(lastRequest().headers.authorization, undefined);
  });

  it("raises an HttpError map for a non-2xx status, with code, headers and parsed body", async () => {
    routes.set("/missing", (_req, res) => json(res, 404, { error: "not here" }));
    const payload = await runError(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.base + "/missing"}
`,
      { base },
    );
    assert.ok(payload && typeof payload === "object");
    const error = payload as Record<string, unknown>;
    assert.deepEqual(error.tags, ["HttpError"]);
    assert.equal(error.code, 404);
    assert.deepEqual(error.body, { error: "not here" });
    assert.equal((error.headers as Record<string, string>)["content-type"], "application/json");
    assert.equal(typeof error.message, "string");
  });

  it("raises TimeoutError when the server does not answer within the per-call timeout", async () => {
    routes.set("/slow", (_req, res) => {
      setTimeout(() => json(res, 200, {}), 3000).unref();
    });
    const started = Date.now();
    const payload = await runError(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.base + "/slow"}
          timeout: 0.2
`,
      { base },
    );
    assert.deepEqual((payload as { tags: unknown }).tags, ["TimeoutError", "OSError"]);
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  it("raises ConnectionFailedError (also tagged ConnectionError) when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const payload = await runError(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.url}
`,
      { url: `http://127.0.0.1:${port}/` },
    );
    assert.deepEqual((payload as { tags: unknown }).tags, ["ConnectionFailedError", "ConnectionError"]);
  });

  it("raises ConnectionError (only) when the connection drops mid-response", async () => {
    routes.set("/drop", (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 20);
    });
    const payload = await runError(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.base + "/drop"}
`,
      { base },
    );
    assert.deepEqual((payload as { tags: unknown }).tags, ["ConnectionError"]);
  });

  it("stops a hanging request at the execution deadline", async () => {
    routes.set("/hang", () => undefined);
    const started = Date.now();
    const err = await run(
      `
main:
  params: [args]
  steps:
    - get:
        call: http.get
        args:
          url: \${args.base + "/hang"}
`,
      { base },
      { deadlineMs: 200 },
    ).then(
      () => assert.fail("expected the deadline to stop the run"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowError && err.deadlineExceeded, String(err));
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });
});
