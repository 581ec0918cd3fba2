import type { v1, v2 } from "@google-cloud/security-center";
import { FerretError, InvalidInputError } from "../../domain/errors.js";
import type { SccFindings } from "../../ports/scc-findings.js";

/** Options handed to both clients (tests point them at a local stand-in with apiEndpoint/port/sslCreds). */
export type SccClientOptions = ConstructorParameters<typeof v2.SecurityCenterClient>[0];

// organizations|folders|projects/<id>/sources/<id>[/locations/<loc>]/findings/<id>
const FINDING_NAME =
  /^(organizations|folders|projects)\/[^/]+\/sources\/[^/]+(\/locations\/[^/]+)?\/findings\/[^/]+$/;

// gRPC status codes a later attempt can get past (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL).
const RETRYABLE_CODES = new Set([14, 4, 8, 10, 13]);

export class SccWriteError extends FerretError {
  constructor(message: string, retryable: boolean, cause: unknown) {
    super("tool_failed", message, { retryable, cause });
  }
}

/**
 * The official Security Command Center client. A finding named with `/locations/` (what v2
 * NotificationConfigs deliver) goes through the v2 API, any other through v1; v1's
 * SetFindingState requires a start time, v2's does not take one.
 */
export class SecurityCenterFindings implements SccFindings {
  private v1Client: InstanceType<typeof v1.SecurityCenterClient> | undefined;
  private v2Client: InstanceType<typeof v2.SecurityCenterClient> | undefined;

  constructor(private readonly options: SccClientOptions = {}) {}

  async setSecurityMarks(findingName: string, marks: Record<string, string>): Promise<void> {
    const request = {
      securityMarks: { name: `${checked(findingName)}/securityMarks`, marks },
      // Only these keys: the analyst's own marks on the finding stay.
      updateMask: { paths: Object.keys(marks).map((k) => `marks.${k}`) },
    };
    await this.call("updateSecurityMarks", findingName, async () =>
      isV2(findingName)
        ? (await this.v2()).updateSecurityMarks(request)
        : (await this.v1()).updateSecurityMarks(request),
    );
  }

  async setMute(findingName: string): Promise<void> {
    const request = { name: checked(findingName), mute: "MUTED" as const };
    await this.call("setMute", findingName, async () =>
      isV2(findingName) ? (await this.v2()).setMute(request) : (await this.v1()).setMute(request),
    );
  }

  async setInactive(findingName: string, at: Date): Promise<void> {
    const name = checked(findingName);
    await this.call("setFindingState", findingName, async () =>
      isV2(findingName)
        ? (await this.v2()).setFindingState({ name, state: "INACTIVE" })
        : (await this.v1()).setFindingState({
            name,
            state: "INACTIVE",
            startTime: { seconds: Math.floor(at.getTime() / 1000), nanos: 0 },
          }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.v1Client?.close(), this.v2Client?.close()]);
  }

  private async v1() {
    this.v1Client ??= new (await loadLibrary()).v1.SecurityCenterClient(this.options);
    return this.v1Client;
  }

  private async v2() {
    this.v2Client ??= new (await loadLibrary()).v2.SecurityCenterClient(this.options);
    return this.v2Client;
  }

  private async call(method: string, findingName: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      const code = error && typeof error === "object" ? Reflect.get(error, "code") : undefined;
      const retryable = typeof code === "number" && RETRYABLE_CODES.has(code);
      const message = error instanceof Error ? error.message : String(error);
      throw new SccWriteError(`SCC ${method} on ${findingName} failed: ${message}`, retryable, error);
    }
  }
}

/**
 * Loaded on first use: the library takes seconds to load (14 s measured on this shared, loaded
 * machine) and every function shares this source tree, so only the worker that writes to SCC
 * pays for it.
 */
function loadLibrary(): Promise<typeof import("@google-cloud/security-center")> {
  return import("@google-cloud/security-center");
}

function isV2(findingName: string): boolean {
  return findingName.includes("/locations/");
}

function checked(findingName: string): string {
  if (!FINDING_NAME.test(findingName)) {
    throw new InvalidInputError(`not an SCC finding name: ${findingName.slice(0, 200)}`);
  }
  return findingName;
}
