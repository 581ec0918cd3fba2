import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the Gemini Developer API that answers as each ferret role would:
 * the function servers reach it through GOOGLE_GEMINI_BASE_URL (read by @google/genai), so
 * the production GeminiModel, its retry policy and its error classification run unchanged.
 * The role is told from the system instruction; every request is recorded with it.
 */
export type Role = "planner" | "executor" | "reflector" | "concluder" | "compressor" | "unknown";

export interface GeminiPart {
  text?: string;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: string;
  parts: GeminiPart[];
}

export interface RecordedCall {
  role: Role;
  path: string;
  contents: GeminiContent[];
  system: string;
  status: number;
}

export interface RoleReply {
  status?: number;
  body: unknown;
}

const ROLE_BY_OPENING: Array<[string, Role]> = [
  ["You plan investigations", "planner"],
  ["You carry out one step", "executor"],
  ["You review the progress", "reflector"],
  ["You write the conclusion", "concluder"],
  ["You condense the older part", "compressor"],
];

export interface RoleGemini {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

export async function startRoleGemini(answer: (call: RecordedCall) => RoleReply): Promise<RoleGemini> {
  const calls: RecordedCall[] = [];
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const path = req.url ?? "";
      if (path.includes(":batchEmbedContents") || path.includes(":embedContent")) {
        const texts = Array.isArray(body.requests) ? body.requests.length : 1;
        const values = Array.from({ length: 768 }, (_, i) => (i === 0 ? 1 : 0));
        return send(res, 200, { embeddings: Array.from({ length: texts }, () => ({ values })) });
      }
      const system = systemText(body);
      const role = ROLE_BY_OPENING.find(([opening]) => system.startsWith(opening))?.[1] ?? "unknown";
      const call: RecordedCall = {
        role,
        path,
        contents: (body.contents ?? []) as GeminiContent[],
        system,
        status: 0,
      };
      const reply = answer(call);
      call.status = reply.status ?? 200;
      calls.push(call);
      send(res, call.status, reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A generateContent answer with usage small enough never to trip preventive compression. */
export function candidate(parts: GeminiPart[]): RoleReply {
  return {
    body: {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1_200, candidatesTokenCount: 80, totalTokenCount: 1_280 },
      modelVersion: "gemini-2.5-flash",
    },
  };
}

export const jsonAnswer = (value: unknown): RoleReply => candidate([{ text: JSON.stringify(value) }]);

/** The Developer API's answer to a request over the model's input window, as it sends it. */
export function tokenLimitRefusal(): RoleReply {
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    },
  };
}

function systemText(body: Record<string, unknown>): string {
  const instruction = body.systemInstruction as { parts?: GeminiPart[] } | undefined;
  return (instruction?.parts ?? []).map((p) => p.text ?? "").join("");
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
    });
    req.on("error", reject);
  });
}

function send(res: import("node:http").ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
