/**
 * @module config/providers/snapshot
 * Snapshot, the off-chain governance hub (snapshot.org; nothing to do with ckg's own snapshots):
 * its id and settings. Its endpoint setting was `snapshot_url`, a name that read like ckg's
 * snapshots; that name is still read, as an alias.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

export const snapshotProvider = defineProvider({
  id: "snapshot",
  title: "Snapshot",
  settings: {
    snapshot_hub_url: setting("string", z.url(), "https://hub.snapshot.org/graphql", "GraphQL endpoint of the Snapshot governance hub (snapshot.org, not ckg's snapshots)", {
      aliases: ["snapshot_url"],
    }),
  },
});
