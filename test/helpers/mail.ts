import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:net";

export interface CapturedMail {
  to: string;
  subject: string;
  /** The message with quoted-printable soft breaks and escapes undone. */
  raw: string;
  /** The activation link the message carries, if any. */
  link?: string;
  token?: string;
}

function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export function parseMail(source: string): CapturedMail {
  const raw = decodeQuotedPrintable(source);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "mi").exec(raw)?.[1]?.trim() ?? "";
  const link = /https?:\/\/[^\s"<>]+\/api\/activate\?token=([A-Za-z0-9_-]+)/.exec(raw);
  return { to: header("To"), subject: header("Subject"), raw, link: link?.[0], token: link?.[1] };
}

/** Emails written to DATA_DIR/outbox (SMTP_URL unset), oldest first. */
export function readOutbox(dataDir: string): CapturedMail[] {
  const dir = join(dataDir, "outbox");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".eml"))
    .sort()
    .map((f) => parseMail(readFileSync(join(dir, f), "utf8")));
}

export interface FakeSmtpServer {
  url: string;
  received: Array<{ from: string; to: string[]; data: string }>;
  /** Recipients the server answers 550 for. */
  reject: Set<string>;
  close(): Promise<void>;
}

/** A minimal SMTP receiver (no TLS, no auth): enough for nodemailer to deliver to it. */
export async function startFakeSmtpServer(): Promise<FakeSmtpServer> {
  const received: FakeSmtpServer["received"] = [];
  const reject = new Set<string>();
  const server: Server = createServer((socket) => {
    let buffer = "";
    let inData = false;
    let mail = { from: "", to: [] as string[], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 fake.smtp ESMTP");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          mail.data = buffer.slice(0, end).replace(/\r\n\.\./g, "\r\n.");
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(mail);
          mail = { from: "", to: [], data: "" };
          reply("250 queued");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") reply("250 fake.smtp");
        else if (verb === "MAIL") {
          mail.from = /<([^>]*)>/.exec(line)?.[1] ?? "";
          reply("250 ok");
        } else if (verb === "RCPT") {
          const to = /<([^>]*)>/.exec(line)?.[1] ?? "";
          if (reject.has(to)) reply("550 no such mailbox");
          else {
            mail.to.push(to);
            reply("250 ok");
          }
        } else if (verb === "DATA") {
          inData = true;
          reply("354 go ahead");
        } else if (verb === "RSET") {
          mail = { from: "", to: [], data: "" };
          reply("250 ok");
        } else if (verb === "QUIT") {
          reply("221 bye");
          socket.end();
        } else reply("250 ok");
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    received,
    reject,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
