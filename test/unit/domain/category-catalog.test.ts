import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { GoogleListedCategory } from "../../../functions/src/domain/catalog/google-lists.js";
import { GOOGLE_LISTED_CATEGORIES } from "../../../functions/src/domain/catalog/google-lists.js";
import {
  buildCatalog,
  CATEGORY_CATALOG,
  catalogEntryFor,
  categoryKey,
  generatedPlaybook,
} from "../../../functions/src/domain/category-catalog.js";
import { findingSource, isCustomSource } from "../../../functions/src/domain/finding/finding-source.js";
import { familyOf } from "../../../functions/src/offline-model/families.js";
import { parseSavedPage, readSavedPages } from "../../../scripts/catalog/google-lists.js";

describe("category catalog", () => {
  it("finds an entry whatever the spelling of the category", () => {
    for (const spelling of ["Malware: Bad Domain", "MALWARE_BAD_DOMAIN", "malware: bad domain (Preview)"])
      assert.equal(catalogEntryFor(spelling)?.category, "Malware: Bad Domain", spelling);
    assert.equal(catalogEntryFor("Persistence: Something Google never documented"), undefined);
  });

  it("describes each entry with its detector, ATT&CK techniques, what to check and a Google documentation page", () => {
    const grant = catalogEntryFor("Persistence: IAM Anomalous Grant");
    assert.equal(grant?.detector, "event_threat_detection");
    assert.deepEqual(grant?.mitre, ["T1098"]);
    assert.equal(grant?.playbook, "iam_grant");
    for (const entry of CATEGORY_CATALOG) {
      assert.match(entry.source, /^https:\/\/(?:docs\.)?cloud\.google\.com\//, entry.category);
      assert.ok(entry.investigate.length > 0, entry.category);
      // ferret's own entries carry ATT&CK techniques; generated ones have none to invent.
      if (entry.findingClass === "THREAT" && entry.origin === "ferret")
        assert.ok(entry.mitre.length > 0, `${entry.category} has a technique`);
    }
  });

  it("keys are unique, so routing never depends on entry order", () => {
    const keys = CATEGORY_CATALOG.map((e) => categoryKey(e.category));
    assert.equal(new Set(keys).size, keys.length);
  });

  it("routes by what a category is, not by its tactic prefix", () => {
    // "Credential Access:" is a tactic; the detector watches a group membership change.
    assert.equal(
      catalogEntryFor("Credential Access: External Member Added To Privileged Group")?.playbook,
      "admin_change",
    );
    // Logging off on a bucket is a posture gap, not a public bucket.
    assert.equal(catalogEntryFor("BUCKET_LOGGING_DISABLED")?.playbook, "posture");
    assert.equal(catalogEntryFor("PUBLIC_BUCKET_ACL")?.playbook, "public_bucket");
  });

  it("has ferret's own entries for the two Backup and DR weakenings ETD lists (issue 38), by display and API name", () => {
    for (const [name, api] of [
      ["Impact: Google Cloud Backup and DR reduced backup expiration", "BACKUP_REDUCE_BACKUP_EXPIRATION"],
      ["Impact: Google Cloud Backup and DR reduced backup frequency", "BACKUP_REDUCE_BACKUP_FREQUENCY"],
    ] as const) {
      const entry = catalogEntryFor(api);
      assert.equal(entry?.category, name);
      assert.deepEqual(entry?.mitre, ["T1490"], name);
      assert.ok(!entry?.meaning.includes("as Google's page lists it"), `${name} is written, not generated`);
    }
  });
});

describe("category catalog against Google's saved pages (test/fixtures/real/google-docs)", () => {
  const pages = readSavedPages();

  it("has an entry for every category a saved page names", () => {
    const missing = pages.flatMap((p) =>
      p.categories
        .filter((c) => catalogEntryFor(c.category) === undefined)
        .map((c) => `${p.file}: ${c.category}`),
    );
    assert.deepEqual(missing, []);
    assert.ok(pages.reduce((n, p) => n + p.categories.length, 0) >= 500);
  });

  it("is generated from the saved lists as they are (run scripts/catalog/generate-google-lists.ts after editing one)", () => {
    const row = (
      c: Omit<GoogleListedCategory, "apiNames" | "alsoKnownAs"> & {
        apiNames: readonly string[];
        alsoKnownAs: readonly string[];
      },
    ) =>
      [c.category, c.apiNames.join(" "), c.alsoKnownAs.join(";"), c.detector, c.findingClass, c.page].join(
        "|",
      );
    const saved = pages.flatMap((p) => p.categories.map(row));
    const generated = GOOGLE_LISTED_CATEGORIES.map(row);
    assert.deepEqual(generated, saved);
    for (const p of pages) assert.match(p.retrieved, /^\d{4}-\d{2}-\d{2}$/, p.file);
  });

  it("knows old and new spellings and API names as aliases of one entry", () => {
    const same = (a: string, b: string) =>
      assert.equal(catalogEntryFor(a), catalogEntryFor(b), `${a} / ${b}`);
    same("Persistence: GCE Admin Added SSH Key", "Persistence: Compute Engine Admin Added SSH Key");
    same("GCE_ADMIN_ADD_SSH_KEY", "Persistence: Compute Engine Admin Added SSH Key");
    same(
      "Privilege Escalation: External Member Added To Privileged Group",
      "Credential Access: External Member Added To Privileged Group",
    );
    same("CRYPTOMINING_POOL_DOMAIN", "Malware: Cryptomining Bad Domain");
    same("CLOUD_RUN_CONTAINER_ESCAPE", "Execution: Container Escape");
    same("C2: Bad IP", "Malware: Bad IP");
    assert.ok(
      catalogEntryFor("Malware: Bad IP")?.aliases.includes("MALWARE_BAD_IP") === false,
      "same key, no alias needed",
    );
  });

  it("gives every name of a saved row one entry: category, API names and the names before a rename", () => {
    const split = pages.flatMap((p) =>
      p.categories.flatMap((c) => {
        const entry = catalogEntryFor(c.category);
        return [...c.apiNames, ...c.alsoKnownAs]
          .filter((n) => catalogEntryFor(n) !== entry)
          .map((n) => `${p.file}: "${n}" is not the entry of "${c.category}"`);
      }),
    );
    assert.deepEqual(split, []);
  });

  it("knows the renames Google's release notes and detection pages document", () => {
    const same = (a: string, b: string) => {
      assert.ok(catalogEntryFor(a), a);
      assert.equal(catalogEntryFor(a), catalogEntryFor(b), `${a} / ${b}`);
    };
    // The Google Groups rules: preview name (2021), GA name (2021), current name (2025).
    same(
      "Credential Access: Privileged Group Joinability Risk",
      "Privilege Escalation: Privileged Group Opened To Public",
    );
    same(
      "Persistence: IAM Anomalous Group Grant",
      "Credential Access: Sensitive Role Granted To Hybrid Group",
    );
    same(
      "Credential Access: External Member In Privileged Group",
      "EXTERNAL_MEMBER_ADDED_TO_PRIVILEGED_GROUP",
    );
    same("Impair Defenses: Strong Authentication Disabled", "Persistence: Strong Authentication Disabled");
    same("Inhibit System Recovery: Google Cloud Backup and DR remove plan", "BACKUP_REMOVE_PLAN");
    same("Data Destruction: Deleted Google Cloud Backup and DR Backup", "BACKUP_DELETE_VAULT_BACKUP");
    same("Defensive Evasion: Static Pod Created", "GKE_STATIC_POD_CREATED");
    same("IAM: Anomalous IP geolocation", "Persistence: New Geography");
    same("YL2_GKE_POD_MASQUERADING", "Defense Evasion: Potential Kubernetes Pod Masquerading");
    same("2SV_NOT_ENFORCED", "MFA_NOT_ENFORCED");
    same("LOGGING_DISABLED", "CLUSTER_LOGGING_DISABLED");
    same("WEAK_ROOT_PASSWORD", "SQL_WEAK_ROOT_PASSWORD");
    same("XSS_CALLBACK", "XSS");
    same("Flow logs settings not recommended", "VPC_FLOW_LOGS_SETTINGS_NOT_RECOMMENDED");
    same("Image Pull Failure", "KTD_IMAGE_PULL_FAILURE");
    same(
      "Execution: Possible Arbitrary Command Execution through CUPS (CVE-2024-47177)",
      "POSSIBLE_ARBITRARY_COMMAND_EXECUTION_THROUGH_CUPS",
    );
  });

  it("files each service's categories under its own detector", () => {
    const detector = (category: string) => catalogEntryFor(category)?.detector;
    assert.equal(detector("account_has_leaked_credentials"), "anomaly_detection");
    assert.equal(detector("Increasing Deny Ratio"), "cloud_armor");
    assert.equal(detector("DATA_SECURITY_POSTURE_FLOW_VIOLATION"), "data_security_posture");
    assert.equal(detector("SECRETS_IN_STORAGE"), "sensitive_data_protection");
    assert.equal(detector("Data risk"), "sensitive_data_protection");
    assert.equal(detector("FLOOR_SETTINGS_VIOLATION"), "model_armor");
    assert.equal(detector("CONTAINER_IMAGE_VULNERABILITY"), "vulnerability_assessment");
    assert.equal(detector("SECURITY_POSTURE_POLICY_DELETE"), "security_posture");
    assert.equal(detector("APS_RESOURCE_VALUE_ASSIGNMENT_LIMIT_EXCEEDED"), "scc_errors");
    assert.equal(detector("CSP_MISSING"), "web_security_scanner");
    assert.equal(detector("Execution: Cryptocurrency Mining Combined Detection"), "vm_threat_detection");
    assert.equal(detector("ALLOYDB_LOG_MIN_MESSAGES"), "security_health_analytics");
  });

  it("covers the categories the issue found missing", () => {
    for (const category of [
      "COMPUTE_SECURE_BOOT_DISABLED",
      "OS_VULNERABILITY",
      "API_KEY_EXISTS",
      "DNSSEC_DISABLED",
      "PRIVATE_GOOGLE_ACCESS_DISABLED",
    ])
      assert.ok(catalogEntryFor(category), category);
  });

  it("gives generated entries their playbook by explicit rules", () => {
    const rule = (category: string, detector: string, findingClass: string) =>
      generatedPlaybook({ category, detector, findingClass });
    assert.equal(
      rule(
        "Impact: Suspicious crypto mining activity using the Stratum Protocol",
        "container_threat_detection",
        "THREAT",
      ),
      "cryptomining",
    );
    assert.equal(
      rule(
        "Exfiltration: Launch Remote File Copy Tools in Container",
        "container_threat_detection",
        "THREAT",
      ),
      "exfiltration",
    );
    assert.equal(rule("Execution: Container Escape", "cloud_run_threat_detection", "THREAT"), "runtime");
    assert.equal(rule("Impact: Service API Disabled", "event_threat_detection", "THREAT"), "admin_change");
    assert.equal(rule("PUBLIC_LOG_BUCKET", "security_health_analytics", "VULNERABILITY"), "public_bucket");
    assert.equal(rule("DNSSEC_DISABLED", "security_health_analytics", "VULNERABILITY"), "posture");
    // A threat class alone would say admin_change; Cloud Armor's traffic findings are posture by rule.
    assert.equal(rule("Increasing Deny Ratio", "cloud_armor", "THREAT"), "posture");
    assert.equal(
      rule("DATA_SECURITY_POSTURE_FLOW_VIOLATION", "data_security_posture", "UNSPECIFIED"),
      "posture",
    );
  });
});

describe("building the catalog from rows (buildCatalog)", () => {
  const URL = "https://docs.cloud.google.com/security-command-center/docs/release-notes";
  const row = (
    category: string,
    findingClass: string,
    apiNames: string[] = [],
    alsoKnownAs: string[] = [],
  ): GoogleListedCategory => ({
    category,
    apiNames,
    alsoKnownAs,
    detector: "security_health_analytics",
    findingClass,
    page: URL,
  });
  const rows = [
    row("Dataproc CMEK disabled", "UNSPECIFIED"),
    row("NEW_DETECTOR", "UNSPECIFIED", [], ["Old detector name"]),
    row("Old detector name", "VULNERABILITY", ["OLD_DETECTOR_API"]),
  ];

  it("makes one entry of rows that share a name, whatever the order of the pages", () => {
    for (const order of [rows, [...rows].reverse()]) {
      const { entries, byKey } = buildCatalog([], order);
      assert.equal(entries.length, 2, order.map((r) => r.category).join(", "));
      const one = byKey.get(categoryKey("OLD_DETECTOR_API"));
      assert.ok(one);
      assert.equal(byKey.get(categoryKey("NEW_DETECTOR")), one);
      assert.equal(byKey.get(categoryKey("Old detector name")), one);
    }
  });

  it("lets a page that names a class win over one that names none", () => {
    const { byKey } = buildCatalog([], rows);
    assert.equal(byKey.get(categoryKey("NEW_DETECTOR"))?.findingClass, "VULNERABILITY");
    assert.equal(byKey.get(categoryKey("Dataproc CMEK disabled"))?.findingClass, "UNSPECIFIED");
    assert.match(
      byKey.get(categoryKey("Dataproc CMEK disabled"))?.meaning ?? "",
      /^A finding of Security Health Analytics/,
    );
  });

  it("refuses rows that make two hand-written entries one detection", () => {
    const hand = ["FIRST_ONE", "SECOND_ONE"].map((category) => ({
      category,
      detector: "security_health_analytics" as const,
      findingClass: "MISCONFIGURATION" as const,
      meaning: "A hand-written entry for this test.",
      mitre: [],
      investigate: ["Whatever the test needs."],
      playbook: "posture" as const,
      source: URL,
    }));
    assert.throws(
      () => buildCatalog(hand, [row("FIRST_ONE", "UNSPECIFIED", [], ["SECOND_ONE"])]),
      /are one detection/,
    );
  });
});

describe("the saved-list format", () => {
  const head =
    "# url: https://docs.cloud.google.com/x\n# retrieved: 2026-11-27\n# detector: scc_errors\n## class: SCC_ERROR\n";

  it("reads API names and the 'also:' names of a row", () => {
    const page = parseSavedPage(
      "x.txt",
      `${head}KTD_IMAGE_PULL_FAILURE | A B | also: Image Pull Failure; KTD image pull failure\n`,
    );
    assert.deepEqual(page.categories[0]?.apiNames, ["A", "B"]);
    assert.deepEqual(page.categories[0]?.alsoKnownAs, ["Image Pull Failure", "KTD image pull failure"]);
  });

  it("refuses a third column that is not 'also:'", () => {
    assert.throws(
      () => parseSavedPage("x.txt", `${head}API_DISABLED | | API disabled\n`),
      /must start with "also:"/,
    );
  });
});

describe("a finding's detector and catalog match (finding-source.ts)", () => {
  it("a custom source's category is custom: the generic plan applies by rule", () => {
    const gridtide = {
      category: "Malware: GRIDTIDE Backdoor & SoftEtherVPN C2 (UNC2814)",
      sourceProperties: { campaign: "x" },
    };
    assert.equal(isCustomSource(gridtide), true);
    assert.equal(isCustomSource({ category: "Anything", parentDisplayName: "Acme Scanner" }), true);
    // A built-in source's new category is not custom: it is planned from its words.
    assert.equal(
      isCustomSource({
        category: "Persistence: Brand New Rule",
        parentDisplayName: "Event Threat Detection",
      }),
      false,
    );
    assert.equal(
      isCustomSource({
        category: "C2: Bad IP",
        sourceProperties: { detectionCategory: { ruleName: "bad_ip" } },
      }),
      false,
    );
  });

  it("a toxic combination or chokepoint gets the generic plan by rule, not a plan read from its words", () => {
    const toxic = {
      category: "Exfiltration path from a public VM to a sensitive dataset",
      findingClass: "TOXIC_COMBINATION",
      parentDisplayName: "Security Command Center Risk Engine",
    };
    assert.equal(isCustomSource(toxic), true);
    assert.match(findingSource(toxic).match, /toxic combination .*generic plan/);
    assert.equal(
      familyOf({ ...toxic, mitre: { tactic: "", techniques: [] }, resource: { name: "" } } as never),
      "generic",
    );
    // The same words in a threat are read as what happened.
    assert.equal(isCustomSource({ ...toxic, findingClass: "THREAT" }), false);
    assert.equal(isCustomSource({ category: "Anything", findingClass: "CHOKEPOINT" }), true);
  });

  it("names the detector from parentDisplayName, the catalog or the detector's own keys", () => {
    assert.equal(
      findingSource({ category: "OPEN_FIREWALL", parentDisplayName: "Security Health Analytics" })
        .detectorFrom,
      "parentDisplayName",
    );
    assert.equal(findingSource({ category: "OS_VULNERABILITY" }).detector, "VM Manager");
    assert.equal(
      findingSource({ category: "SOMETHING_NEW", sourceProperties: { ScannerName: "X" } }).detector,
      "Security Health Analytics",
    );
  });
});
