import type { AddressInfo } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";
import { Transform } from "node:stream";

/**
 * A TCP proxy in front of an emulator (Firestore's gRPC port), for outages: `cut()` resets
 * every open connection and refuses new ones until `restore()`. The clients behind it see
 * exactly what an unreachable backend looks like (UNAVAILABLE), while the data behind it
 * survives, which restarting the in-memory emulator would not allow.
 *
 * `muteReplies()` keeps forwarding requests but drops every answer: a write then lands in
 * the emulator while its caller never hears so, which is what a connection lost between
 * commit and reply looks like.
 */
export interface TcpProxy {
  /** host:port to give clients instead of the upstream's. */
  host: string;
  readonly down: boolean;
  /** Connections refused or reset while down. */
  readonly refused: number;
  cut(): void;
  /** Ends muting too. */
  restore(): void;
  muteReplies(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(upstream: string): Promise<TcpProxy> {
  const [upHost, upPort] = upstream.split(":");
  const open = new Set<Socket>();
  let down = false;
  let muted = false;
  let refused = 0;
  const server: Server = createServer((client) => {
    if (down) {
      refused += 1;
      client.destroy();
      return;
    }
    const backend = connect(Number(upPort), upHost ?? "127.0.0.1");
    open.add(client);
    open.add(backend);
    const drop = () => {
      client.destroy();
      backend.destroy();
      open.delete(client);
      open.delete(backend);
    };
    client.on("error", drop);
    backend.on("error", drop);
    client.on("close", drop);
    backend.on("close", drop);
    const replies = new Transform({
      transform(chunk, _encoding, done) {
        done(null, muted ? undefined : chunk);
      },
    });
    client.pipe(backend);
    backend.pipe(replies).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    get down() {
      return down;
    },
    get refused() {
      return refused;
    },
    cut() {
      down = true;
      for (const socket of open) {
        refused += 1;
        socket.resetAndDestroy();
      }
      open.clear();
    },
    restore() {
      down = false;
      muted = false;
    },
    muteReplies() {
      muted = true;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
