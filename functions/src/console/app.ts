import express, { type NextFunction, type Request, type Response } from "express";
import { FerretError } from "../domain/errors.js";
import { toHttpFailure } from "../entry/http-errors.js";
import { fromRoot } from "../platform/paths.js";
import { deleteMemory, publishDispute, publishReinvestigate } from "./actions.js";
import {
  CSRF_COOKIE,
  CSRF_FIELD,
  cookieValue,
  csrfToken,
  newCsrfSecret,
  sameOrigin,
  validCsrfToken,
} from "./csrf.js";
import { type Authenticate, ConsoleAuthError, type ConsoleUser } from "./identity.js";
import { investigationPage } from "./pages/investigation.js";
import { investigationsPage } from "./pages/investigations.js";
import { memoriesPage } from "./pages/memories.js";
import { queuePage } from "./pages/queue.js";
import { reportPage } from "./pages/report.js";
import type { ConsoleDeps } from "./ports.js";
import { renderView, type ViewName } from "./views.js";

/**
 * The content security policy of every response: scripts, styles and images only from the
 * console itself (it serves one stylesheet and no script), never inline, no plugins, no
 * framing, forms only to itself. A string that slipped past escaping still could not run.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Fixed texts shown after an action; the query names one, never supplies the text. */
const FLASH = {
  disputed:
    "Dispute sent: the analyst-actions worker records it next to ferret's verdict, as for a Slack click.",
  reinvestigating: "Re-investigation requested: the analyst-actions worker starts it, as for a Slack click.",
  deleted: "Memory deleted.",
} as const;

export interface ConsoleAppOptions {
  deps: ConsoleDeps;
  authenticate: Authenticate;
  /** Behind IAP and Cloud Run's front end: trust X-Forwarded-Proto/Host for the own origin. */
  behindProxy: boolean;
}

interface Locals {
  user: ConsoleUser;
  csrf: string;
}

export function consoleApp(options: ConsoleAppOptions): express.Express {
  const { deps } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", options.behindProxy);

  app.use((_req, res, next) => {
    res.set({
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "X-Content-Type-Options": "nosniff",
      // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with
      // a form POST, and the same-origin check could not tell the console's forms from others.
      "Referrer-Policy": "same-origin",
      "X-Frame-Options": "DENY",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cache-Control": "no-store",
    });
    next();
  });
  app.use("/static", express.static(fromRoot("console/static"), { index: false, fallthrough: false }));

  // Who is asking, before anything is read.
  app.use(async (req, res, next) => {
    const user = await options.authenticate((name) => req.get(name));
    let secret = cookieValue(req.get("cookie"), CSRF_COOKIE);
    if (!secret || !/^[A-Za-z0-9_-]{20,64}$/.test(secret)) {
      secret = newCsrfSecret();
      res.cookie(CSRF_COOKIE, secret, {
        httpOnly: true,
        sameSite: "strict",
        secure: req.secure,
        path: "/",
      });
    }
    res.locals.user = user;
    res.locals.csrf = csrfToken(secret, user.email);
    res.locals.csrfSecret = secret;
    next();
  });

  const page =
    (view: ViewName, build: (req: Request) => Promise<Record<string, unknown>>) =>
    async (req: Request, res: Response) => {
      const context = await build(req);
      const flash =
        typeof req.query.done === "string" ? FLASH[req.query.done as keyof typeof FLASH] : undefined;
      res.type("html").send(await renderView(view, { ...context, ...common(res), flash: flash ?? "" }));
    };

  app.get("/", (_req, res) => res.redirect(303, "/investigations"));
  app.get(
    "/investigations",
    page("investigations", (req) => investigationsPage(deps, req.query)),
  );
  app.get(
    "/investigations/:id",
    page("investigation", (req) => investigationPage(deps, String(req.params.id))),
  );
  app.get(
    "/memories",
    page("memories", (req) => memoriesPage(deps, req.query)),
  );
  app.get(
    "/queue",
    page("queue", () => queuePage(deps)),
  );
  app.get(
    "/report",
    page("report", (req) => reportPage(deps, req.query)),
  );

  const form = [express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 }), checkForm];
  app.post("/investigations/:id/dispute", form, async (req: Request, res: Response) => {
    const id = String(req.params.id);
    const body = formBody(req);
    await publishDispute(deps, res.locals.user as ConsoleUser, id, {
      verdict: body.verdict,
      reason: body.reason,
    });
    res.redirect(303, `/investigations/${id}?done=disputed`);
  });
  app.post("/investigations/:id/reinvestigate", form, async (req: Request, res: Response) => {
    const id = String(req.params.id);
    await publishReinvestigate(deps, res.locals.user as ConsoleUser, id);
    res.redirect(303, `/investigations/${id}?done=reinvestigating`);
  });
  app.post("/memories/:id/delete", form, async (req: Request, res: Response) => {
    await deleteMemory(deps, res.locals.user as ConsoleUser, String(req.params.id));
    res.redirect(303, "/memories?done=deleted");
  });

  app.use(async (_req: Request, res: Response) => {
    await renderError(res, 404, "Not found", "There is no such page.");
  });
  app.use(async (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof ConsoleAuthError) {
      deps.logger.warn("console request refused", { reason: error.message });
      res
        .status(401)
        .type("text")
        .send("Unauthenticated: open the console through its Identity-Aware Proxy address.");
      return;
    }
    const failure = toHttpFailure(error);
    if (!(error instanceof FerretError) || failure.status >= 500) {
      deps.logger.error("console request failed", { error: failure.body.error.message });
    }
    await renderError(
      res,
      failure.status,
      failure.status >= 500 ? "Something went wrong" : "Request refused",
      failure.status >= 500 && !(error instanceof FerretError)
        ? "See the console's logs."
        : failure.body.error.message,
    );
  });
  return app;
}

/** What every page's layout needs. */
function common(res: Response): Record<string, unknown> {
  const locals = res.locals as Partial<Locals>;
  return { user: locals.user?.email ?? "", csrf: locals.csrf ?? "", csrfField: CSRF_FIELD };
}

async function renderError(res: Response, status: number, title: string, message: string): Promise<void> {
  if (res.headersSent) return;
  res
    .status(status)
    .type("html")
    .send(await renderView("error", { ...common(res), title, message, status, nav: "", flash: "" }));
}

function formBody(req: Request): Record<string, string> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(body).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** Same-origin and the double-submit token, on every state change. */
function checkForm(req: Request, res: Response, next: NextFunction): void {
  const origin = sameOrigin(
    { origin: req.get("origin"), secFetchSite: req.get("sec-fetch-site") },
    `${req.protocol}://${req.get("host") ?? ""}`,
  );
  const user = res.locals.user as ConsoleUser;
  const secret = cookieValue(req.get("cookie"), CSRF_COOKIE);
  if (!origin.ok) {
    res.status(403).type("text").send(`Refused: ${origin.reason}.`);
    return;
  }
  if (!validCsrfToken(secret, user.email, formBody(req)[CSRF_FIELD])) {
    res
      .status(403)
      .type("text")
      .send("Refused: the form's token does not match this browser and user; reload the page.");
    return;
  }
  next();
}
