import type { z } from "zod";
import { requestApproval, settleApproval } from "../app/approval-responder.js";
import type { ResponderRequestSchema } from "./http-requests.js";
import type { Operation } from "./workflow-call.js";

/** The responder (docs/decisions/0031): records a held call, then settles or runs it. */
export const responderOperation: Operation<z.infer<typeof ResponderRequestSchema>> = async (input, deps) =>
  input.operation === "request"
    ? { ...(await requestApproval(input, deps)) }
    : { ...(await settleApproval(input, deps)) };
