import * as ff from "@google-cloud/functions-framework";
import { analystActionsFunction, slackEventsFunction } from "./functions/analyst-functions.js";
import { getRuntime } from "./functions/compose.js";
import { ingestFunction, memoryIntrospectorFunction, notifierFunction } from "./functions/event-functions.js";
import {
  advanceOperation,
  compressorOperation,
  finishOperation,
  HTTP_SCHEMAS,
  plannerOperation,
  stepOperation,
  workflowHandler,
} from "./functions/http-functions.js";

/**
 * Every Cloud Function of ferret, registered from one source tree. Each deployed function
 * names one of these as its entry point (platform/entrypoints.ts lists them; Terraform and
 * the local stack are checked against that list).
 */
ff.http("planner", workflowHandler("planner", HTTP_SCHEMAS.planner, plannerOperation, getRuntime));
ff.http(
  "stepExecutor",
  workflowHandler("stepExecutor", HTTP_SCHEMAS.stepExecutor, stepOperation, getRuntime),
);
ff.http("reflector", workflowHandler("reflector", HTTP_SCHEMAS.reflector, advanceOperation, getRuntime));
ff.http("concluder", workflowHandler("concluder", HTTP_SCHEMAS.concluder, finishOperation, getRuntime));
ff.http(
  "compressor",
  workflowHandler("compressor", HTTP_SCHEMAS.compressor, compressorOperation, getRuntime),
);
ff.cloudEvent("ingest", ingestFunction(getRuntime));
ff.cloudEvent("memoryIntrospector", memoryIntrospectorFunction(getRuntime));
ff.cloudEvent("notifier", notifierFunction(getRuntime));
ff.http("slackEvents", slackEventsFunction(getRuntime));
ff.cloudEvent("analystActions", analystActionsFunction(getRuntime));
