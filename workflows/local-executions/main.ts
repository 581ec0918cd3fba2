import { parseArgs } from "node:util";
import { LocalExecutionsService } from "./service.js";

/**
 * Entry point of the local executions service process. The function URLs come from the
 * environment, exactly the variables Terraform sets as the workflow's user_env_vars.
 */
const { values } = parseArgs({
  options: { port: { type: "string" }, yaml: { type: "string" } },
});
if (!values.port || !values.yaml) {
  process.stderr.write("usage: main.ts --port N --yaml workflows/investigate.yaml\n");
  process.exit(2);
}
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    (e): e is [string, string] => e[0].startsWith("FERRET_") && typeof e[1] === "string",
  ),
);
const service = new LocalExecutionsService({
  yamlPath: values.yaml,
  env,
  onLog: (entry) =>
    process.stdout.write(`${JSON.stringify({ severity: "INFO", component: "workflow", ...entry })}\n`),
});
await service.listen(Number(values.port));
process.stdout.write(
  `${JSON.stringify({ severity: "INFO", message: `local workflow executions listening on ${values.port}` })}\n`,
);
const shutdown = () => {
  service.close().finally(() => process.exit(0));
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
