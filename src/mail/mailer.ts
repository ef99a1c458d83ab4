import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Transporter } from "nodemailer";
import type { Config } from "../config.js";
import { AppError } from "../core/errors.js";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** The mail server refused or could not be reached: not the caller's fault, and nothing was stored. */
export class MailDeliveryError extends AppError {
  constructor(reason: string) {
    super("INTERNAL", 503, reason, [{ problemType: "DELIVERY_FAILURE", severity: "ERROR", reason }]);
  }
}

/**
 * Sends over SMTP when SMTP_URL is set (any nodemailer connection URL, e.g.
 * smtps://user:pass@mail.example.com:465). Without it, every message is written as an RFC 822
 * `.eml` file to DATA_DIR/outbox (mode 0600: activation links are secrets), so a self-hosted
 * instance without a mail server still lets an operator hand the links out.
 */
export function createMailer(config: Pick<Config, "smtpUrl" | "dataDir" | "mailFrom">): Mailer {
  // nodemailer is imported with the first message: most processes never send one (~10 MB saved).
  let transporter: Promise<Transporter> | undefined;
  const transport = (options: Parameters<typeof import("nodemailer").createTransport>[0]) =>
    (transporter ??= import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(options)));
  if (config.smtpUrl) {
    const smtpUrl = config.smtpUrl;
    return {
      async send(message) {
        try {
          await (await transport(smtpUrl)).sendMail({ from: config.mailFrom, ...message });
        } catch (error) {
          throw new MailDeliveryError(`The email to ${message.to} could not be sent: ${(error as Error).message}`);
        }
      },
    };
  }
  const outbox = join(config.dataDir, "outbox");
  return {
    async send(message) {
      const info = await (await transport({ streamTransport: true, buffer: true, newline: "unix" })).sendMail({ from: config.mailFrom, ...message });
      mkdirSync(outbox, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      writeFileSync(join(outbox, `${stamp}-${randomBytes(4).toString("hex")}.eml`), info.message as Buffer, { mode: 0o600 });
    },
  };
}

const mailers = new WeakMap<object, Mailer>();

/** One mailer per running app (keyed by its services object), built on first use. */
export function mailerFor(app: { config: Config }): Mailer {
  let mailer = mailers.get(app);
  if (!mailer) {
    mailer = createMailer(app.config);
    mailers.set(app, mailer);
  }
  return mailer;
}
