import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the Gemini Developer API on 127.0.0.1 that the function servers reach
 * through GOOGLE_GEMINI_BASE_URL (the base URL @google/genai reads). The handler sees each
 * request's raw JSON text (the prompt, with the finding in it) and decides the answer, so
 * one server can serve several investigations each with its own fault.
 */
export interface GeminiCall {
  path: string;
  /** The request body as sent, for routing on the finding it carries. */
  text: string;
  status: number;
}

export interface GeminiReply {
  status: number;
  /** Sent verbatim (malformed bodies included); otherwise `json` is serialized. */
  raw?: string;
  json?: unknown;
  headers?: Record<string, string>;
}

export interface FakeGemini {
  url: string;
  calls: GeminiCall[];
  close(): Promise<void>;
}

export async function startFakeGemini(
  handler: (call: { path: string; text: string; body: unknown }) => GeminiReply,
): Promise<FakeGemini> {
  const calls: GeminiCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
      const reply = handler({ path: req.url ?? "", text, body });
      calls.push({ path: req.url ?? "", text, status: reply.status });
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(reply.raw ?? JSON.stringify(reply.json ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A generateContent answer carrying `text` as the model's only part. */
export function textAnswer(text: string): GeminiReply {
  return {
    status: 200,
    json: {
      candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 200, candidatesTokenCount: 50, totalTokenCount: 250 },
      modelVersion: "gemini-2.5-flash",
    },
  };
}

/** The error body Google APIs send with a status, e.g. 503 UNAVAILABLE. */
export function apiError(
  status: number,
  rpcStatus: string,
  message: string,
  details: unknown[] = [],
): GeminiReply {
  return { status, json: { error: { code: status, message, status: rpcStatus, details } } };
}
