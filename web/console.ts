import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Router, type Request, type Response } from "express";

/**
 * The web console at /console: static files from `console/` and one JavaScript bundle built with
 * esbuild from `console/app.js` and its npm packages (preact, htm, graphql-ws, chart.js) on the
 * first request, kept in memory. Nothing comes from a CDN, so the console works offline. The
 * console is only a client: it calls /api/graphql and graphql-ws like any other.
 */
function consoleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // web/ from the sources, dist/web/ from the compiled server.
  for (const candidate of [join(here, "..", "console"), join(here, "..", "..", "console")]) if (existsSync(join(candidate, "app.js"))) return candidate;
  throw new Error("console/ sources not found beside the server");
}

export const CONSOLE_PATH = "/console";

export function consoleRouter(): Router {
  const dir = consoleDir();
  let bundle: Promise<string> | undefined;
  const build = async () => {
    const { build: esbuild } = await import("esbuild");
    const result = await esbuild({
      entryPoints: [join(dir, "app.js")],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      legalComments: "none",
      logLevel: "silent",
    });
    return result.outputFiles[0].text;
  };
  const router = Router();
  const noCache = (res: Response) => res.set("cache-control", "no-cache").set("x-content-type-options", "nosniff");
  const securityHeaders = (res: Response) =>
    res.set("content-security-policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'").set("referrer-policy", "no-referrer");
  router.get(["/", "/index.html"], (req: Request, res: Response) => {
    if (req.originalUrl === CONSOLE_PATH) return res.redirect(301, `${CONSOLE_PATH}/`);
    noCache(securityHeaders(res)).type("html").send(readFileSync(join(dir, "index.html")));
  });
  router.get("/app.css", (_req, res) => {
    noCache(res).type("css").send(readFileSync(join(dir, "app.css")));
  });
  router.get("/app.js", async (_req, res, next) => {
    try {
      bundle ??= build().catch((error) => {
        bundle = undefined;
        throw error;
      });
      noCache(res).type("application/javascript").send(await bundle);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
