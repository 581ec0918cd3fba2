/**
 * What the web console does in Google Cloud and the IAM permission each operation needs. The
 * functions' permissions are not listed by hand any more: least-privilege.test.ts derives them
 * from the calls each function is observed making. The console is not in that run yet, so its
 * few operations stay listed here, checked by permissions.test.ts against console.tf.
 *
 * Scopes name resources as local.grants does: project; topic/dead_letter_topic <topic>;
 * secret <key>; log_dataset; function <entry point>; source_bucket; gcf_sources_bucket.
 */
export interface Operation {
  sa: string;
  what: string;
  permission: string;
  scope: string;
  target?: string;
}

/**
 * The web console (terraform/console.tf, only with enable_console). Its grants are resources of
 * their own, not rows of local.grants: one is a custom role, one goes to IAP's service agent
 * ("iap" here). Scopes as above; "function console" is the console's Cloud Run service.
 */
export const CONSOLE_OPERATIONS: readonly Operation[] = [
  {
    sa: "console",
    what: "reads an investigation, its results, reflections, events and Slack claims, a memory, the governor's state (console/pages/)",
    permission: "datastore.entities.get",
    scope: "project",
  },
  {
    sa: "console",
    what: "lists changed investigations, searches by IOC / principal / resource, lists memories and the queue, counts the queue (console/pages/)",
    permission: "datastore.entities.list",
    scope: "project",
  },
  {
    sa: "console",
    what: "begins the memory delete's transaction (adapters/firestore/memory-store.ts delete)",
    permission: "datastore.databases.get",
    scope: "project",
  },
  {
    sa: "console",
    what: "deletes the memory in that transaction's commit (console/actions.ts deleteMemory)",
    permission: "datastore.entities.delete",
    scope: "project",
  },
  {
    sa: "console",
    what: "publishes Dispute and Re-investigate as the Slack buttons do (console/actions.ts)",
    permission: "pubsub.topics.publish",
    scope: "topic",
    target: "analyst-actions",
  },
  {
    sa: "iap",
    what: "forwards a request IAP admitted, with its service agent's ID token (X-Serverless-Authorization)",
    permission: "run.routes.invoke",
    scope: "function",
    target: "console",
  },
];
