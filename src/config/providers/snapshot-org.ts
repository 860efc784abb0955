/**
 * @module config/providers/snapshot-org
 * Snapshot, the off-chain governance hub (snapshot.org; nothing to do with ckg's own snapshots):
 * its id and settings. In the code it is "snapshot-org", so that "snapshot" means ckg's data versions
 * only. Its provider id stays `snapshot`: the id is data (each fact's source, the raw folder, entity
 * keys like `Organization:snapshot:<space>`, the form DefiLlama's governance ids use), and renaming it
 * would make every ingested governance fact look changed. Its endpoint setting was `snapshot_url`,
 * a name that read like ckg's snapshots; that name is still read, as an alias.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

export const snapshotOrgProvider = defineProvider({
  id: "snapshot",
  title: "Snapshot",
  settings: {
    snapshot_hub_url: setting("string", z.url(), "https://hub.snapshot.org/graphql", "GraphQL endpoint of the Snapshot governance hub (snapshot.org, not ckg's snapshots)", {
      aliases: ["snapshot_url"],
    }),
  },
});
