/**
 * @module api/metrics
 * Prometheus metrics (prom-client): requests and latency by route and status, graph state, webhook deliveries.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Services } from "../operations/context.ts";

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "ckg_http_requests_total",
    help: "HTTP requests answered, by method, route and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "ckg_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(services: Services) {
    const registry = this.registry;
    new Gauge({
      name: "ckg_ready",
      help: "1 when the server is ready to answer every route.",
      registers: [registry],
      collect() {
        this.set(services.phase === "ready" ? 1 : 0);
      },
    });
    new Gauge({
      name: "ckg_graph_quads",
      help: "Quads loaded in the graph store.",
      registers: [registry],
      collect() {
        this.set(services.graph.status().quads ?? 0);
      },
    });
    new Gauge({
      name: "ckg_graph_replicas_ready",
      help: "Graph processes ready to answer queries.",
      registers: [registry],
      collect() {
        this.set(services.graph.status().replicas.filter((r) => r.state === "ready").length);
      },
    });
    new Gauge({
      name: "ckg_graph_queue_length",
      help: "Graph queries waiting for a free graph process.",
      registers: [registry],
      collect() {
        this.set(services.graph.status().queued);
      },
    });
    new Gauge({
      name: "ckg_graph_queries_running",
      help: "Graph queries being answered now.",
      registers: [registry],
      collect() {
        this.set(services.graph.status().running);
      },
    });
    new Gauge({
      name: "ckg_graph_query_timeouts",
      help: "Graph queries stopped at their time limit since start.",
      registers: [registry],
      collect() {
        this.set(services.graph.status().timeouts);
      },
    });
    const byEngine = (name: string, help: string, values: () => Record<string, number>) =>
      new Counter({
        name,
        help,
        labelNames: ["engine"] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const [engine, n] of Object.entries(values())) this.inc({ engine }, n);
        },
      });
    byEngine(
      "ckg_sparql_queries_total",
      "SPARQL SELECT and ASK queries answered, by engine (duckdb: analytic queries on the graph tables; oxigraph: the graph store).",
      () => services.sparqlEngines.queries,
    );
    byEngine("ckg_sparql_query_seconds_total", "Time spent answering SPARQL SELECT and ASK queries, by engine.", () => services.sparqlEngines.seconds);
    new Gauge({
      name: "ckg_webhook_deliveries",
      help: "Webhook deliveries in the state store, by state (pending ones are due or waiting for a retry).",
      labelNames: ["state"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const rows = await services.state.all<{ status: string; n: number }>("SELECT status, CAST(count(*) AS INTEGER) AS n FROM deliveries GROUP BY status");
        for (const row of rows) this.set({ state: row.status }, Number(row.n));
      },
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
