import { createServer } from "node:net";

// A port handed out is not bound until its user starts, so the OS may offer it again meanwhile
// (a test picking ports for two servers it starts later got the same one twice).
const handedOut = new Set<number>();

function askForPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await askForPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}
