// Preloaded into each function process of a storm test (NODE_OPTIONS=--import <this file>),
// before the function's own code: every Firestore commit and batchWrite that succeeds appends one
// line per written document, {"t": <ms>, "doc": "<path>"}, to TEST_FIRESTORE_WRITE_LOG. The test
// reads the lines to count writes per document per second. Plain JavaScript because Node loads
// NODE_OPTIONS imports before the command line's `--import tsx`. It wraps the client's own
// request method (@google-cloud/firestore build/src/index.js `Firestore.prototype.request`, the
// one WriteBatch._commit and BulkWriter call with 'commit' / 'batchWrite'), so it counts what the
// emulator accepted, transactions and retries included, exactly once per successful call.
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const file = process.env.TEST_FIRESTORE_WRITE_LOG;
if (file) {
  const require = createRequire(join(process.cwd(), "package.json"));
  const { Firestore } = require("@google-cloud/firestore");
  const original = Firestore.prototype.request;
  const documentOf = (write) =>
    write.update?.name ??
    (typeof write.delete === "string" ? write.delete : undefined) ??
    write.transform?.document;
  Firestore.prototype.request = async function loggedRequest(methodName, request, ...rest) {
    const result = await original.call(this, methodName, request, ...rest);
    if ((methodName === "commit" || methodName === "batchWrite") && Array.isArray(request?.writes)) {
      const t = Date.now();
      const lines = request.writes
        .map(documentOf)
        .filter((doc) => typeof doc === "string")
        .map((doc) =>
          JSON.stringify({ t, doc: doc.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, "") }),
        );
      if (lines.length > 0) appendFileSync(file, `${lines.join("\n")}\n`);
    }
    return result;
  };
}
