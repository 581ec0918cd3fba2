import { createServer } from "node:http";
import { forward, type GateProxy, listenLocal } from "./gate-proxy.js";

/**
 * The part of a push subscription the Pub/Sub emulator lacks: it cannot attach the OIDC token
 * terraform/pubsub.tf configures (push_config.oidc_token: the push service account, audience the
 * function's URL), which Pub/Sub adds to every push
 * (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions). The emulator pushes
 * here instead; the relay adds a freshly signed token, as Pub/Sub would, and passes the request
 * and the answer through unchanged, so the function's gate checks pushes exactly like the
 * workflow's calls.
 */
export async function startPushRelay(options: { target: string; token: () => string }): Promise<GateProxy> {
  const target = new URL(options.target);
  const server = createServer((req, res) => {
    forward(req, res, target, { authorization: `Bearer ${options.token()}` });
  });
  return listenLocal(server, 0);
}
