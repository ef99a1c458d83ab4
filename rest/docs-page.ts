import type { CompiledRoute } from "./compile.js";

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** A self-contained HTML index of the REST endpoints (works offline; the details are in openapi.json). */
export function renderDocsPage(routes: CompiledRoute[]): string {
  const byTag = new Map<string, CompiledRoute[]>();
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))) {
    (byTag.get(route.def.tag) ?? byTag.set(route.def.tag, []).get(route.def.tag)!).push(route);
  }
  const sections = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([tag, list]) => `<h2>${escape(tag)}</h2><table><tr><th>Method</th><th>Path</th><th>Permission</th><th>GraphQL</th><th>What it does</th></tr>${list
        .map(
          (r) =>
            `<tr${r.def.deprecated ? ' class="deprecated"' : ""}><td><code>${r.method}</code></td><td><code>/api/v1${escape(r.path)}</code></td><td><code>${escape(r.permission)}</code>${r.acceptedPermissions.length > 1 ? ` (or the older ${r.acceptedPermissions.slice(1).map((p) => `<code>${escape(p)}</code>`).join(", ")})` : ""}</td><td><code>${r.def.operation}.${escape(r.def.field)}</code></td><td>${escape(r.def.summary)}${r.def.deprecated ? " (deprecated)" : ""}</td></tr>`,
        )
        .join("")}</table>`,
    )
    .join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><title>API reference</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem}table{border-collapse:collapse;width:100%;margin-bottom:2rem}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}code{font-size:.9em}.deprecated{color:#888}</style>
</head><body><h1>REST API reference</h1>
<p>Every request needs <code>Authorization: Bearer &lt;token&gt;</code>. Bodies are JSON. Query endpoints take <code>?page=</code> (zero-based), <code>&amp;size=</code> and <code>&amp;sort=field,asc|desc</code>, with the filter as the body. Errors use the ActionableErrorResponse body. Machine-readable description: <a href="openapi.json">openapi.json</a>. GraphQL (with GraphiQL): <a href="/api/graphql">/api/graphql</a>.</p>
${sections}
</body></html>`;
}
