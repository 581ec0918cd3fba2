import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { CONTENT_SECURITY_POLICY, consoleApp } from "../../../functions/src/console/app.js";
import { csrfToken } from "../../../functions/src/console/csrf.js";
import { ConsoleAuthError, localAuthenticator } from "../../../functions/src/console/identity.js";
import { AnalystActionSchema } from "../../../functions/src/domain/analyst.js";
import { conclusion, investigation } from "../notify/fixtures.js";
import { fakeDeps, memory } from "./support.js";

/** The console's HTTP surface: headers, authentication, CSRF and the actions' messages. */
const USER = "ana@example.com";
const concluded = investigation({
  status: "concluded",
  conclusion: conclusion(),
  updatedAt: "2024-05-03T10:00:00.000Z",
});

async function serve(app: ReturnType<typeof consoleApp>): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("console app", () => {
  const deps = fakeDeps({ investigations: [concluded], memories: [memory()] });
  let server: Server;
  let url: string;
  let refusing: Server;
  let refusingUrl: string;

  before(async () => {
    ({ server, url } = await serve(
      consoleApp({ deps, authenticate: localAuthenticator(USER), behindProxy: false }),
    ));
    ({ server: refusing, url: refusingUrl } = await serve(
      consoleApp({
        deps,
        authenticate: async () => {
          throw new ConsoleAuthError("no token");
        },
        behindProxy: true,
      }),
    ));
  });
  after(() => {
    server.close();
    refusing.close();
  });

  async function session(): Promise<{ cookie: string; token: string }> {
    const res = await fetch(`${url}/investigations`);
    const setCookie = res.headers.get("set-cookie") ?? "";
    const secret = /ferret_csrf=([^;]+)/.exec(setCookie)?.[1] ?? "";
    assert.match(setCookie, /HttpOnly/i);
    assert.match(setCookie, /SameSite=Strict/i);
    return { cookie: `ferret_csrf=${secret}`, token: csrfToken(secret, USER) };
  }

  const post = (path: string, body: Record<string, string>, headers: Record<string, string>) =>
    fetch(`${url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(body).toString(),
    });

  it("every page carries the strict CSP and no inline script or style", async () => {
    for (const path of [
      "/investigations",
      `/investigations/${concluded.id}`,
      "/memories",
      "/queue",
      "/report",
      "/nope",
    ]) {
      const res = await fetch(`${url}${path}`);
      assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY, path);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      const html = await res.text();
      assert.ok(!/<script/i.test(html) && !/style="/i.test(html) && !/<style/i.test(html), path);
    }
    assert.ok(!CONTENT_SECURITY_POLICY.includes("unsafe-inline"));
    const css = await fetch(`${url}/static/console.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type") ?? "", /text\/css/);
  });

  it("refuses without an identity, before reading anything", async () => {
    const res = await fetch(`${refusingUrl}/investigations`);
    assert.equal(res.status, 401);
  });

  it("bad input is a 400 page that names it; an unknown investigation a 404", async () => {
    const bad = await fetch(`${url}/investigations?status=done`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /bad filter status/);
    assert.equal((await fetch(`${url}/investigations/inv-aaaaaaaaaaaaaaaaaaaaaaaa`)).status, 404);
    assert.equal((await fetch(`${url}/investigations/..%2f..%2fetc`)).status, 404);
  });

  it("a form without a same-origin Origin or with a wrong token changes nothing", async () => {
    const { cookie, token } = await session();
    const form = { csrf: token, verdict: "benign", reason: "change ticket CHG-7" };
    const path = `/investigations/${concluded.id}/dispute`;
    assert.equal((await post(path, form, { cookie })).status, 403, "no Origin");
    assert.equal(
      (await post(path, form, { cookie, origin: "https://evil.example" })).status,
      403,
      "cross-origin",
    );
    assert.equal(
      (await post(path, { ...form, csrf: "x" }, { cookie, origin: url })).status,
      403,
      "wrong token",
    );
    assert.equal((await post(path, form, { origin: url })).status, 403, "no cookie");
    assert.equal(
      (
        await post(
          path,
          { ...form, csrf: csrfToken("another-browser-secret-xyz", USER) },
          { cookie, origin: url },
        )
      ).status,
      403,
      "a token of another browser",
    );
    assert.equal(deps.published.length, 0);
  });

  it("dispute and re-investigate publish the Slack buttons' message, as the console user", async () => {
    const { cookie, token } = await session();
    const disputed = await post(
      `/investigations/${concluded.id}/dispute`,
      { csrf: token, verdict: "benign", reason: "change ticket CHG-7" },
      { cookie, origin: url },
    );
    assert.equal(disputed.status, 303);
    assert.equal(disputed.headers.get("location"), `/investigations/${concluded.id}?done=disputed`);
    const again = await post(
      `/investigations/${concluded.id}/reinvestigate`,
      { csrf: token },
      { cookie, "sec-fetch-site": "same-origin" },
    );
    assert.equal(again.status, 303);
    assert.equal(deps.published.length, 2);
    const [dispute, reinvestigate] = deps.published.map((p) => {
      assert.equal(p.topic, "analyst-actions");
      return AnalystActionSchema.parse(p.data);
    });
    assert.equal(dispute?.kind, "dispute");
    assert.equal(dispute?.verdict, "benign");
    assert.equal(dispute?.reason, "change ticket CHG-7");
    assert.deepEqual(dispute?.user, { id: `console:${USER}`, name: USER });
    assert.equal(reinvestigate?.kind, "reinvestigate");
  });

  it("a dispute without a reason is refused with a clear message and publishes nothing", async () => {
    const { cookie, token } = await session();
    const before = deps.published.length;
    const res = await post(
      `/investigations/${concluded.id}/dispute`,
      { csrf: token, verdict: "benign", reason: "" },
      { cookie, origin: url },
    );
    assert.equal(res.status, 400);
    assert.match(await res.text(), /give a reason/);
    assert.equal(deps.published.length, before);
  });

  it("deletes a memory through the memory store", async () => {
    const { cookie, token } = await session();
    const res = await post(`/memories/${memory().id}/delete`, { csrf: token }, { cookie, origin: url });
    assert.equal(res.status, 303);
    assert.deepEqual(deps.deleted, [memory().id]);
    const gone = await post(`/memories/${memory().id}/delete`, { csrf: token }, { cookie, origin: url });
    assert.equal(gone.status, 404);
  });
});
