import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderStatusBoard } from "../../../functions/src/notify/render-root.js";
import { messagePage, mrkdwnHtml } from "../../../scripts/card-picture/block-kit-html.js";
import { firstCard } from "../../../scripts/render-card.js";
import * as fx from "./fixtures.js";

describe("the docs' picture of the verdict card (scripts/render-card.ts)", () => {
  it("lays the card's blocks out as Slack does: header, why, fields, IOCs, buttons, footer", () => {
    const inv = fx.investigation({
      status: "concluded",
      conclusion: fx.conclusion({ why: "attacker@evil.example.com granted itself roles/owner." }),
    });
    const html = messagePage(renderStatusBoard(inv, { sccButtons: false }).blocks, {
      bot: "ferret",
      time: "now",
    });
    assert.match(
      html,
      /<div class="header">🚨 True positive · 85% confidence — Persistence: IAM Anomalous Grant<\/div>/,
    );
    assert.match(
      html,
      /<strong>Why:<\/strong> attacker\[@\]evil\.example\[\.\]com granted itself roles\/owner\./,
    );
    assert.match(html, /<div class="field"><strong>Resource<\/strong>/);
    assert.match(html, /<span class="button primary">👍 Confirm<\/span>/);
    assert.match(
      html,
      /<a href="https:\/\/console\.cloud\.google\.com\/security\/command-center\/findings\?organizationId=123456789&amp;resourceId=/,
    );
  });

  it("keeps Slack's escaped characters as text, never markup", () => {
    assert.equal(
      mrkdwnHtml("&lt;script&gt;alert(1)&lt;/script&gt; &amp;"),
      "&lt;script&gt;alert(1)&lt;/script&gt; &amp;",
    );
    const hostile = fx.investigation({
      status: "concluded",
      finding: fx.finding({ category: "<img src=x onerror=alert(1)>" }),
      conclusion: fx.conclusion({ why: "<script>alert(2)</script>" }),
    });
    const html = messagePage(renderStatusBoard(hostile, { sccButtons: false }).blocks, {
      bot: "ferret",
      time: "now",
    });
    assert.ok(!/<script|<img/i.test(html), html);
  });

  it("takes the first root update that carries the card's buttons", () => {
    const card = [{ type: "actions", elements: [] }];
    assert.deepEqual(
      firstCard([
        { method: "chat.postMessage", args: { blocks: [{ type: "header" }] } },
        { method: "chat.update", args: { blocks: [{ type: "header" }] } },
        { method: "chat.update", args: { blocks: card } },
        { method: "chat.update", args: { blocks: [{ type: "actions", elements: [{ type: "button" }] }] } },
      ]),
      card,
    );
    assert.equal(firstCard([]), undefined);
  });
});
