/**
 * @module api/console-routes
 * The web console's routes: its page at /, its bundled script and styles under CONSOLE_ASSETS, and
 * the operator's session (state, sign in with CKG_CONSOLE_TOKEN, sign out). The session's answer
 * is documented in /openapi.json, where the console's own types come from (src/console/api-types.ts).
 */
import { z } from "zod";
import { CkgError } from "../errors.ts";
import { toJsonSchema } from "../operations/json-schema.ts";
import { PAYMENT_MODES, type PaymentMode } from "../config/settings-payments.ts";
import { readJsonObject } from "./body.ts";
import { CONSOLE_ASSETS, type ConsoleFile, consoleFiles } from "./console-files.ts";
import type { ConsoleSessions } from "./console-session.ts";
import { errorResponse } from "./openapi.ts";
import type { ResponseSet, Route } from "./routes.ts";

const sessionSchema = z.object({
  signed_in: z.boolean().describe("this request carries a live operator session: its paid calls are not charged"),
  sign_in: z.boolean().describe("an operator can sign in: the server has a console token (CKG_CONSOLE_TOKEN)"),
  payments: z.enum(PAYMENT_MODES).describe("off, or on with a remote or an in-process facilitator"),
});

const signInSchema = z.object({ token: z.string().describe("the server's console token (CKG_CONSOLE_TOKEN)") });

export interface ConsoleDeps {
  sessions: ConsoleSessions;
  payments: { mode: PaymentMode };
  /** Whether the public address is https (the cookie is then Secure). */
  secure: () => boolean;
}

export function consoleRoutes({ sessions, payments, secure }: ConsoleDeps): Route[] {
  return [
    { method: "GET", path: "/", doc: undefined, about: "The web console: pages for search, entities, signals, changes, queries (SPARQL and SQL), subscriptions, signal quality and the server's status, over the routes of this API.", handle: async ({ request, set }) => serve((await consoleFiles()).page, request, set, "no-cache") },
    {
      method: "GET",
      path: `${CONSOLE_ASSETS}/:file`,
      doc: undefined,
      about: "The console's script and styles, named by their content (cached for a year).",
      async handle({ request, params, set }) {
        const file = (await consoleFiles()).assets.get(params.file!);
        if (!file) throw new CkgError("not_found", `The console has no file ${params.file}.`);
        // Named by their content: a name never changes what it holds.
        return serve(file, request, set, "public, max-age=31536000, immutable");
      },
    },
    {
      method: "GET",
      path: "/console/session",
      doc: {
        entry: {
          operationId: "console_session",
          summary: "The console operator's session",
          description: "Whether this request carries the operator's session, whether an operator can sign in, and the payment mode.",
          responses: { "200": { description: "Success.", content: { "application/json": { schema: toJsonSchema(sessionSchema, "output") } } } },
        },
      },
      handle: ({ request }): z.input<typeof sessionSchema> => ({ signed_in: sessions.isOperator(request.headers.get("cookie")), sign_in: sessions.enabled, payments: payments.mode }),
    },
    {
      method: "POST",
      path: "/console/session",
      doc: {
        entry: {
          operationId: "console_sign_in",
          summary: "Sign the console operator in",
          description:
            "With the server's console token: a session cookie (HttpOnly, SameSite=Strict, 12 hours) under which requests are not charged. " +
            "A wrong token is 401; a server without a console token answers 404.",
          requestBody: { required: true, content: { "application/json": { schema: toJsonSchema(signInSchema, "input") } } },
          responses: {
            "204": { description: "Signed in; the Set-Cookie header carries the session." },
            "400": errorResponse("The body is not a JSON object."),
            "401": errorResponse("That is not the console token."),
            "404": errorResponse("The server has no console token: nobody can sign in."),
            "413": errorResponse("Request body over 64 KiB."),
          },
        },
      },
      async handle({ request, set }) {
        const body = await readJsonObject(request);
        set.headers["set-cookie"] = sessions.signIn(body.token, secure());
        set.headers["cache-control"] = "no-store";
        set.status = 204;
        return "";
      },
    },
    {
      method: "DELETE",
      path: "/console/session",
      doc: { entry: { operationId: "console_sign_out", summary: "Sign the console operator out", description: "Clears the session cookie.", responses: { "204": { description: "Signed out." } } } },
      handle({ set }) {
        set.headers["set-cookie"] = sessions.signOut(secure());
        set.status = 204;
        return "";
      },
    },
  ];
}

/** A console file, or 304 when the browser's copy is current. */
function serve(file: ConsoleFile, request: Request, set: ResponseSet, cacheControl: string): Uint8Array | string {
  set.headers.etag = file.etag;
  set.headers["cache-control"] = cacheControl;
  if (request.headers.get("if-none-match") === file.etag) {
    set.status = 304;
    return "";
  }
  set.headers["content-type"] = file.contentType;
  return file.body;
}
