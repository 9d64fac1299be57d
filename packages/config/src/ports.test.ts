import { describe, expect, it } from 'vitest';
import {
  CLUSTER_MAX_INSTANCES,
  CLUSTER_PORTS,
  clusterPortUses,
  devStackPortUses,
  imagesSmokePortUses,
  STACK_SERVICES,
  testPortUses,
  type PortUse,
} from './ports.ts';

/** Every port two or more entries claim, with what claims it. */
function collisions(uses: PortUse[]): string[] {
  const byPort = new Map<number, string[]>();
  for (const { port, what } of uses) byPort.set(port, [...(byPort.get(port) ?? []), what]);
  return [...byPort].filter(([, whats]) => whats.length > 1).map(([port, whats]) => `${port}: ${whats.join(', ')}`);
}

const dev = devStackPortUses();
const devAll = [...dev.services, ...dev.infra];
const fullCluster = clusterPortUses(Object.fromEntries(STACK_SERVICES.map((s) => [s, CLUSTER_MAX_INSTANCES])) as never);

describe('the port map', () => {
  it('finds a collision when two entries share a port', () => {
    expect(collisions([...testPortUses(), { port: testPortUses()[0]!.port, what: 'intruder' }])).toHaveLength(1);
  });

  it('gives npm start, the test instances and the images smoke run ports of their own: they run side by side', () => {
    expect(collisions([...devAll, ...testPortUses(), ...imagesSmokePortUses()])).toEqual([]);
  });

  it('gives the cluster at its largest ports apart from the test instances and the images smoke run', () => {
    expect(collisions([...fullCluster, ...testPortUses(), ...imagesSmokePortUses()])).toEqual([]);
  });

  it('shares only the edge and Prometheus between npm start and the cluster (the stack lock runs one)', () => {
    const devPorts = new Set(devAll.map((u) => u.port));
    const shared = [...new Set(fullCluster.filter((u) => devPorts.has(u.port)).map((u) => u.port))].sort();
    expect(shared).toEqual([CLUSTER_PORTS.edge, CLUSTER_PORTS.prometheus].sort());
  });

  it('keeps every port a valid unprivileged TCP port', () => {
    for (const { port, what } of [...devAll, ...testPortUses(), ...imagesSmokePortUses(), ...fullCluster]) {
      expect(port, what).toBeGreaterThanOrEqual(1024);
      expect(port, what).toBeLessThanOrEqual(65535);
    }
  });
});
