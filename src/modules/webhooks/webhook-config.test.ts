import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config.js";
import { refusedKind } from "./outbound.js";
import { normaliseWebhookUrl } from "./webhook-url.js";

describe("webhook configuration", () => {
  it("reads the retry schedule with units, the allow-list and the static host mapping", () => {
    const config = loadConfig({ WEBHOOK_RETRY_SCHEDULE: "5s, 5m,30m,2h,90", WEBHOOK_ALLOWED_HOSTS: "Hooks.Corp.Example,*.corp.example,10.20.0.0/16,fd00::1", WEBHOOK_RESOLVE: "a.test=127.0.0.1, B.test=::1" });
    expect(config.webhookRetrySchedule).toEqual([5, 300, 1800, 7200, 90]);
    expect(config.webhookAllowedHosts).toEqual(["hooks.corp.example", "*.corp.example", "10.20.0.0/16", "fd00::1"]);
    expect(config.webhookResolve).toEqual({ "a.test": "127.0.0.1", "b.test": "::1" });
    expect(loadConfig({}).webhookRetrySchedule).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(loadConfig({}).secretsKey).toBeUndefined();
  });

  it("refuses values it cannot use, naming the variable", () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: "5s,soon" })).toThrow(/WEBHOOK_RETRY_SCHEDULE: "soon"/);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: "10.0.0.0/40" })).toThrow(/WEBHOOK_ALLOWED_HOSTS/);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: "bad host" })).toThrow(/WEBHOOK_ALLOWED_HOSTS/);
    expect(() => loadConfig({ WEBHOOK_RESOLVE: "a.test=nowhere" })).toThrow(/WEBHOOK_RESOLVE/);
    expect(() => loadConfig({ SECRETS_KEY: "short" })).toThrow(/at least 16/);
  });
});

describe("addresses a webhook may not reach", () => {
  it("names loopback, private, link-local, metadata and reserved addresses; public ones pass", () => {
    expect(refusedKind("127.0.0.1")).toBe("a loopback address");
    expect(refusedKind("::1")).toBe("a loopback address");
    expect(refusedKind("::ffff:127.0.0.1")).toBe("a loopback address");
    expect(refusedKind("169.254.169.254")).toBe("a cloud metadata address");
    expect(refusedKind("fd00:ec2::254")).toBe("a cloud metadata address");
    expect(refusedKind("169.254.1.1")).toBe("a link-local address");
    expect(refusedKind("fe80::1")).toBe("a link-local address");
    expect(refusedKind("10.0.0.1")).toBe("a private network address");
    expect(refusedKind("172.31.255.255")).toBe("a private network address");
    expect(refusedKind("192.168.1.1")).toBe("a private network address");
    expect(refusedKind("fd12:3456::1")).toBe("a private network address");
    expect(refusedKind("0.0.0.0")).toBe("an unspecified address");
    expect(refusedKind("64:ff9b::7f00:1")).toBe("a reserved or special-purpose address");
    expect(refusedKind("224.0.0.1")).toBe("a reserved or special-purpose address");
    expect(refusedKind("93.184.216.34")).toBeUndefined();
    expect(refusedKind("2606:2800:220:1:248:1893:25c8:1946")).toBeUndefined();
    expect(refusedKind("172.32.0.1")).toBeUndefined();
  });

  it("registration keeps host names, drops default ports and fragments", () => {
    expect(normaliseWebhookUrl(" https://Hooks.Example.COM:443/a/b?c=d#frag ")).toBe("https://hooks.example.com/a/b?c=d");
    expect(normaliseWebhookUrl("https://hooks.example.com:8443/")).toBe("https://hooks.example.com:8443/");
    expect(normaliseWebhookUrl("https://bücher.example/x")).toBe("https://xn--bcher-kva.example/x");
  });
});
