// The cluster's Prometheus scrapes what the cluster runs: for any instance counts, one job per
// service listing every instance's metrics port (workers included), none shared with another port.
import { describe, expect, it } from 'vitest';
import { clusterPortUses } from '@fragrance/config';
import { prometheusConfig } from '@fragrance/metrics';
import { haproxyConfig } from '@fragrance/stack';
import { instanceSpec } from './instances.ts';
import { backendsOf, instancesOf, parseCounts, PROMETHEUS_PORT, scrapeTargetsOf, SERVICES } from './topology.ts';

interface ScrapeConfig {
  job_name: string;
  metrics_path: string;
  static_configs: { targets: string[] }[];
}

const scrapeJobs = (args: string[]) => {
  const instances = instancesOf(parseCounts(args).counts);
  const text = prometheusConfig({ targets: scrapeTargetsOf(instances), ruleFiles: ['/rules/*.yml'] });
  const config = JSON.parse(text) as { rule_files: string[]; scrape_configs: ScrapeConfig[] };
  return { instances, config };
};

describe('the cluster scrape config', () => {
  it('lists every instance of every service for the default counts', () => {
    const { config } = scrapeJobs([]);
    expect(config.rule_files).toEqual(['/rules/*.yml']);
    expect(config.scrape_configs.map((job) => [job.job_name, job.metrics_path, job.static_configs[0]?.targets])).toEqual([
      ['gateway', '/metrics', ['127.0.0.1:19101', '127.0.0.1:19102']],
      ['catalogue', '/metrics', ['127.0.0.1:19201', '127.0.0.1:19202']],
      ['auth', '/metrics', ['127.0.0.1:19301', '127.0.0.1:19302']],
      ['mcp', '/metrics', ['127.0.0.1:19401', '127.0.0.1:19402']],
      ['worker', '/metrics', ['127.0.0.1:19501', '127.0.0.1:19502']],
    ]);
  });

  it('follows the counts given on the command line', () => {
    const { instances, config } = scrapeJobs(['--gateway', '3', '--catalogue', '1', '--worker', '4']);
    const counts = Object.fromEntries(config.scrape_configs.map((job) => [job.job_name, job.static_configs[0]?.targets.length]));
    expect(counts).toEqual({ gateway: 3, catalogue: 1, auth: 2, mcp: 2, worker: 4 });
    const scraped = config.scrape_configs.flatMap((job) => job.static_configs.flatMap((s) => s.targets));
    expect(scraped.sort()).toEqual(instances.map((i) => `127.0.0.1:${i.metricsPort}`).sort());
    expect(new Set(config.scrape_configs.map((job) => job.job_name))).toEqual(new Set(SERVICES));
  });

  it('gives every metrics port and Prometheus a port no other process of the cluster binds', () => {
    const { counts } = parseCounts(['--gateway', '9', '--catalogue', '9', '--auth', '9', '--mcp', '9', '--worker', '9']);
    const ports = clusterPortUses(counts);
    const taken = ports.map((p) => p.port);
    expect(new Set(taken).size).toBe(taken.length);
    expect(ports).toContainEqual({ port: PROMETHEUS_PORT, what: 'Prometheus' });
    for (const instance of instancesOf(counts)) {
      expect(ports).toContainEqual({ port: instance.port, what: instance.name });
      expect(ports).toContainEqual({ port: instance.metricsPort, what: `${instance.name} metrics` });
    }
  });
});

describe('the cluster HAProxy config', () => {
  const config = haproxyConfig({ adminSocket: '/tmp/admin.sock', backends: backendsOf(instancesOf(parseCounts([]).counts), '/ready') });
  const section = (name: string) => config.split(/\n(?=frontend|backend)/).find((s) => s.startsWith(name)) ?? '';

  it("gives every edge request its own id, replacing the client's (the gateways trust it for admission)", () => {
    expect(section('frontend gateway')).toContain('http-request set-header X-Edge-Request-Id %[unique-id]');
    for (const name of ['catalogue', 'auth', 'mcp', 'elasticsearch']) expect(section(`frontend ${name}`)).not.toContain('unique-id');
  });

  it("passes the client's address to the gateways, which trust it from loopback (per-visitor limits)", () => {
    expect(section('frontend gateway')).toContain('option forwardfor');
    for (const name of ['catalogue', 'auth', 'mcp', 'elasticsearch']) expect(section(`frontend ${name}`)).not.toContain('forwardfor');
    const gateway = instancesOf(parseCounts([]).counts).find((i) => i.service === 'gateway');
    expect(gateway && instanceSpec(gateway, {}, 'secret').env.TRUST_PROXY).toBe('loopback');
  });

  it('replays a POST the instance may have acted on only for MCP and refresh grants, at the edge and at the mcp and auth frontends', () => {
    expect(section('backend gateway')).toContain('http-request disable-l7-retry if METH_POST !{ path /mcp /oauth/token }');
    expect(section('backend mcp')).toContain('http-request disable-l7-retry if !METH_GET !METH_POST !{ method HEAD }');
    expect(section('backend auth')).toContain('http-request disable-l7-retry if !METH_GET !METH_POST !{ method HEAD }');
  });

  it('replays a refresh-token grant at the edge and at the auth frontend, no other token POST', () => {
    for (const name of ['gateway', 'auth']) {
      expect(section(`backend ${name}`)).toContain(
        'http-request disable-l7-retry if METH_POST { path /oauth/token } !{ req.body_param(grant_type) -m str refresh_token }',
      );
    }
    expect(section('backend auth')).toContain('http-request disable-l7-retry if METH_POST !{ path /oauth/token }');
  });
});
