import type { RestClient } from "./client.js";

/** An organization and an engagement in it, through the REST API; returns the engagement. */
export async function createEngagement(api: RestClient, name = "Engagement"): Promise<{ id: string; organizationId: string }> {
  const organization = await api.post("/organizations", { name: `${name} org` });
  if (organization.status !== 200) throw new Error(`creating an organization failed: ${JSON.stringify(organization.body)}`);
  const engagement = await api.post("/engagements", {
    organizationId: organization.body.id,
    name,
    accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" },
  });
  if (engagement.status !== 200) throw new Error(`creating an engagement failed: ${JSON.stringify(engagement.body)}`);
  return engagement.body;
}

/** A new API token with exactly these permissions; returns a client using it. */
export async function clientWithPermissions(api: RestClient, permissions: string[], name = "limited"): Promise<RestClient & { tokenId: string }> {
  const created = await api.post("/api-tokens", { name, permissions, allowedAddresses: [] });
  if (created.status !== 200) throw new Error(`creating a token failed: ${JSON.stringify(created.body)}`);
  return Object.assign(api.withToken(created.body.token), { tokenId: created.body.id as string });
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls GET /async-results/{id} until the job leaves IN_PROGRESS. */
export async function awaitJob(api: RestClient, asyncResultId: string, timeoutMs = 20_000): Promise<{ status: string; error?: string; entityId: string; entityType: string; type: string }> {
  return waitFor(async () => {
    const response = await api.get(`/async-results/${asyncResultId}`);
    if (response.status !== 200) throw new Error(`GET async result ${asyncResultId}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.status === "IN_PROGRESS" ? undefined : response.body;
  }, `async result ${asyncResultId}`, timeoutMs);
}
