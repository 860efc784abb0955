/**
 * @module ingest/providers/github
 * Source repositories of the known protocols and their contributors from the GitHub REST API (v3):
 * the organizations DefiLlama names in a protocol's `github` (the largest protocols by TVL first),
 * each organization's ten most starred repositories that are neither forks nor archived, and the
 * people who commit to them.
 *
 * An organization's repositories are listed whole (`sort=pushed`, 100 a page, until an empty or
 * short page) because the API cannot sort them by stars. A name that is a user rather than an
 * organization (404 on /orgs) is listed from /users. Contributors: one page (the 100 with most
 * commits, bots left out), of which the first 30 are kept: GitHub logins are Person entities, and
 * one-commit contributors would crowd the people search without telling anything about a project.
 *
 * Without a token GitHub allows 60 requests an hour: set one (`github_token`) for more than a
 * handful of organizations. A rate-limited request waits for the reset (see ProviderHttp).
 */
import { z } from "zod";
import { githubProvider } from "../../config/providers/github.ts";
import type { FetchContext } from "../connector.ts";
import { ask, defineConnector, parseEach } from "../connector.ts";
import { ProviderError } from "../http.ts";
import type { RawStore } from "../raw-store.ts";
import { type ProviderOutput, key } from "../records.ts";
import { knownProtocols } from "./defillama/known-protocols.ts";

const P = githubProvider.id;
const REPO_PAGE = 100;
/** An organization with more repositories than this many pages is read up to here. */
const MAX_REPO_PAGES = 10;
const REPOS_PER_ORG = 10;
const CONTRIBUTORS_PER_REPO = 30;

const repoSchema = z.object({
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  html_url: z.url({ protocol: /^https?$/ }),
  description: z.string().nullish(),
  fork: z.boolean(),
  archived: z.boolean().optional().default(false),
  language: z.string().nullish(),
  license: z.object({ spdx_id: z.string().nullish() }).nullish(),
  stargazers_count: z.number().int().nonnegative(),
});
type Repo = z.infer<typeof repoSchema>;

const contributorSchema = z.object({
  login: z.string().min(1),
  type: z.string().optional(),
  contributions: z.number().int().nonnegative().optional(),
});

/** A GitHub error body (`{"message": "Not Found", ...}`), saved when a name or repository is gone. */
const errorSchema = z.object({ message: z.string() });


const repoKey = (fullName: string) => key("Repository", "github", fullName);
const personKey = (login: string) => key("Person", "github", login);
const isBot = (c: { login: string; type?: string }) => c.type === "Bot" || /\[bot\]$/i.test(c.login);

/** Saved answers under `repos/<org>/<page>`, pages in order. */
function repoPages(raw: RawStore, org: string): string[] {
  return raw
    .keys(P, `repos/${org}/`)
    .filter((k) => /^\d+$/.test(k.slice(`repos/${org}/`.length)))
    .sort((a, b) => Number(a.slice(a.lastIndexOf("/") + 1)) - Number(b.slice(b.lastIndexOf("/") + 1)));
}

/** An organization's kept repositories: not forks, not archived, the most starred first. */
function keptRepos(raw: RawStore, org: string, out?: ProviderOutput): Repo[] {
  const byName = new Map<string, Repo>();
  for (const k of repoPages(raw, org)) {
    const page = raw.load(P, k);
    if (!Array.isArray(page)) {
      if (!errorSchema.safeParse(page).success) out?.reject(`github answer ${k}`, "not a list of repositories");
      continue;
    }
    for (const repo of parseEach(page, repoSchema, (item, issue) => out?.reject(`repository ${JSON.stringify((item as { full_name?: unknown } | null)?.full_name ?? null)}`, issue))) {
      if (!repo.fork && !repo.archived) byName.set(repo.full_name.toLowerCase(), repo);
    }
  }
  return [...byName.values()]
    .sort((a, b) => b.stargazers_count - a.stargazers_count || a.full_name.localeCompare(b.full_name))
    .slice(0, REPOS_PER_ORG);
}

/** Organizations with saved repository pages (lower-cased names). */
function savedOrgs(raw: RawStore): string[] {
  return [...new Set(raw.keys(P, "repos/").map((k) => k.split("/")[1]!))];
}

async function fetchRepos(ctx: FetchContext, api: string, org: string, headers: Record<string, string>): Promise<void> {
  let base: "orgs" | "users" = "orgs";
  for (let page = 1; page <= MAX_REPO_PAGES; page++) {
    const k = `repos/${org}/${page}`;
    await ask(ctx, P, k, async () => {
      for (;;) {
        try {
          return await ctx.http.getJson(`${api}/${base}/${encodeURIComponent(org)}/repos?per_page=${REPO_PAGE}&sort=pushed&page=${page}`, { headers });
        } catch (error) {
          if (!(error instanceof ProviderError) || error.status !== 404) throw error;
          if (base === "orgs") {
            base = "users";
            continue;
          }
          ctx.log.warn({ org }, "GitHub knows no organization or user of this name");
          return { message: "Not Found", status: "404" };
        }
      }
    });
    const saved = ctx.raw.load(P, k);
    if (!Array.isArray(saved) || saved.length < REPO_PAGE) return;
  }
  ctx.log.warn({ org, pages: MAX_REPO_PAGES }, "organization has more repositories than are read; the rest are left out");
}

async function fetchContributors(ctx: FetchContext, api: string, repo: Repo, headers: Record<string, string>): Promise<void> {
  const k = `contributors/${repo.full_name}`;
  const [owner, name] = repo.full_name.split("/") as [string, string];
  // 204 (an empty repository) reads as null: no contributors. A repository gone or blocked (404,
  // 409, 451) is saved as such, so a resumed run does not ask again; a 403 that is not the rate
  // limit (a contributor list too large for the API) is a skipped request.
  const asked = await ask(ctx, P, k, async () => (await ctx.http.getJson(`${api}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/contributors?per_page=100`, { headers })) ?? [], {
    absentOn: [404, 409, 451],
  });
  if (asked === "absent") ctx.raw.save(P, k, { message: "Not Found", status: "404" });
}

export const github = defineConnector(githubProvider, {
  source: {
    name: "GitHub REST API",
    license: "GitHub API terms; repository metadata as published by its owners",
    attribution: "Repositories and contributors from the GitHub REST API (https://docs.github.com/rest).",
    homepage: "https://github.com",
  },
  configure: (settings) => ({ settings: { urls: { api: settings.github_url }, apiKey: settings.github_token }, minIntervalMs: 0 }),

  async fetch(ctx) {
    const api = (ctx.settings.urls.api ?? githubProvider.settings.github_url.default).replace(/\/+$/, "");
    const headers: Record<string, string> = {
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      ...(ctx.settings.apiKey ? { authorization: `Bearer ${ctx.settings.apiKey}` } : {}),
    };
    const known = knownProtocols(ctx.raw);
    if (known.problem) {
      ctx.log.warn({ reason: known.problem }, "GitHub: no known protocols, so no organizations to read; nothing fetched");
      ctx.progress(0, 0);
      return;
    }
    const orgs: string[] = [];
    for (const p of known.protocols.filter((x) => x.orgs.length > 0).slice(0, Math.max(0, ctx.detailLimit))) {
      for (const org of p.orgs) if (!orgs.includes(org.toLowerCase())) orgs.push(org.toLowerCase());
    }
    if (orgs.length === 0) ctx.log.warn({ protocols: known.protocols.length }, "GitHub: none of the known protocols names a GitHub organization");
    if (!ctx.settings.apiKey && orgs.length > 4) ctx.log.warn({ orgs: orgs.length }, "GitHub without a token allows 60 requests an hour: set github_token");
    ctx.progress(0, orgs.length);
    for (const [i, org] of orgs.entries()) {
      await fetchRepos(ctx, api, org, headers);
      for (const repo of keptRepos(ctx.raw, org)) await fetchContributors(ctx, api, repo, headers);
      ctx.progress(i + 1, orgs.length);
    }
  },

  parse(raw, out) {
    const protocols = knownProtocols(raw).protocols;
    const people = new Map<string, { login: string; repos: string[] }>();
    for (const org of savedOrgs(raw)) {
      const repos = keptRepos(raw, org, out);
      for (const repo of repos) {
        const spdx = repo.license?.spdx_id?.trim();
        const description = repo.description?.trim();
        out.entity({
          type: "Repository",
          keys: [repoKey(repo.full_name)],
          name: repo.full_name,
          attributes: [
            ...(repo.language ? [["programmingLanguage", repo.language] as ["programmingLanguage", string]] : []),
            ...(spdx && spdx !== "NOASSERTION" ? [["license", spdx] as ["license", string]] : []),
            ["schema:url", repo.html_url],
            ...(description ? [["schema:description", description] as ["schema:description", string]] : []),
          ],
          sameAs: [repo.html_url],
          prominence: Math.min(1, Math.log10(1 + repo.stargazers_count) / 5),
        });
        for (const p of protocols) {
          if (p.orgs.some((o) => o.toLowerCase() === org)) out.link(key("Protocol", "defillama", p.slug), "hasRepository", repoKey(repo.full_name));
        }

        const k = `contributors/${repo.full_name}`;
        const answer = raw.load(P, k);
        if (answer === undefined || errorSchema.safeParse(answer).success) continue;
        if (!Array.isArray(answer)) {
          out.reject(`github answer ${k}`, "not a list of contributors");
          continue;
        }
        let kept = 0;
        const rejectContributor = (item: unknown, issue: string) => out.reject(`contributor ${JSON.stringify((item as { login?: unknown } | null)?.login ?? null)} of ${repo.full_name}`, issue);
        // Lazy: contributors after the kept ones are neither read nor rejected.
        for (const contributor of parseEach(answer, contributorSchema, rejectContributor)) {
          if (isBot(contributor) || contributor.type === "Anonymous") continue;
          if (kept++ >= CONTRIBUTORS_PER_REPO) break;
          const id = contributor.login.toLowerCase();
          const person = people.get(id) ?? { login: contributor.login, repos: [] };
          if (!person.repos.includes(repo.full_name)) person.repos.push(repo.full_name);
          people.set(id, person);
        }
      }
    }
    for (const { login, repos } of people.values()) {
      out.entity({
        type: "Person",
        keys: [personKey(login)],
        name: login,
        relations: repos.map((r) => ["contributesTo", repoKey(r)] as ["contributesTo", string]),
        sameAs: [`https://github.com/${login}`],
      });
    }
  },
});
