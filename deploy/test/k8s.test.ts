import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addressVariable, ALL_SERVICES, GRPC_SERVICES, splitAddress, type ServiceName } from '@gw/kit';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBase, validateManifest, type Manifest } from './k8s-manifests.js';
import { canConnect, selects, type Peer } from './network-policy.js';
import { loadServiceConfig } from './service-env.js';

const BASE = fileURLToPath(new URL('../k8s', import.meta.url));
const EDGE_AND_PROXY = ['edge', 'proxy'] as const;
const HTTP_PROBES = { edge: '/livez', proxy: '/internal/healthz' } as const;
const INTERNET: Peer = { address: '203.0.113.7' };

function named<T extends Manifest>(
  manifests: Manifest[],
  Model: abstract new (...args: never[]) => T,
  name: string,
): T {
  const found = manifests.find(
    (manifest): manifest is T => manifest instanceof Model && manifest.metadata?.name === name,
  );
  if (!found) {
    throw new Error(`no ${Model.name} named ${name}`);
  }
  return found;
}

function containerOf(deployment: Deployment) {
  const container = deployment.spec?.template.spec?.containers[0];
  if (!container) {
    throw new Error(`${String(deployment.metadata?.name)} has no container`);
  }
  return container;
}

/** The ports a container serves its traffic on: all but the metrics port, which no Service fronts. */
function servingPorts(container: ReturnType<typeof containerOf>) {
  return (container.ports ?? []).filter((port) => port.name !== 'metrics');
}

function podLabels(deployment: Deployment): Record<string, string> {
  return deployment.spec?.template.metadata?.labels ?? {};
}

describe('deploy/k8s (kustomize base)', () => {
  let manifests: Manifest[];
  let deployments: Record<ServiceName, Deployment>;
  let policies: NetworkPolicy[];

  beforeAll(() => {
    const base = loadBase(BASE);
    manifests = base.manifests;
    deployments = Object.fromEntries(
      ALL_SERVICES.map((service) => [service, named(manifests, Deployment, service)]),
    ) as Record<ServiceName, Deployment>;
    policies = manifests.filter((manifest): manifest is NetworkPolicy => manifest instanceof NetworkPolicy);
  });

  it('lists every manifest file of the folder in kustomization.yaml', () => {
    const files = readdirSync(BASE).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
    expect([...loadBase(BASE).resources].sort()).toEqual(files.sort());
  });

  it('refuses an object that breaks its Kubernetes schema, and a kind the base does not use', () => {
    type ProbedDeployment = {
      spec: { template: { spec: { containers: Array<{ readinessProbe: { grpc: { port: unknown } } }> } } };
    };
    const broken = JSON.parse(JSON.stringify(deployments.accounts)) as ProbedDeployment;
    broken.spec.template.spec.containers[0]!.readinessProbe.grpc.port = 'not-a-number';
    expect(() => validateManifest(broken as unknown as Record<string, unknown>, 'broken.yaml')).toThrow(
      /readinessProbe\/grpc\/port must be integer/,
    );
    expect(() =>
      validateManifest({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }, 'pod.yaml'),
    ).toThrow(/not a kind this base uses/);
  });

  it('runs every service from its own image as a non-root process with a read-only root', () => {
    for (const service of ALL_SERVICES) {
      const deployment = deployments[service];
      expect(containerOf(deployment).image, service).toMatch(new RegExp(`^gw-${service}:`));
      expect(deployment.spec?.template.spec?.securityContext?.runAsNonRoot, service).toBe(true);
      expect(containerOf(deployment).securityContext?.readOnlyRootFilesystem, service).toBe(true);
      expect(containerOf(deployment).securityContext?.allowPrivilegeEscalation, service).toBe(false);
    }
  });

  it('sets resource requests and limits on every container', () => {
    for (const service of ALL_SERVICES) {
      const { requests, limits } = containerOf(deployments[service]).resources ?? {};
      for (const resource of ['cpu', 'memory']) {
        expect(requests?.[resource], `${service} request ${resource}`).toBeDefined();
        expect(limits?.[resource], `${service} limit ${resource}`).toBeDefined();
      }
    }
  });

  it('probes gRPC services on grpc.health.v1 at the port they listen on', () => {
    for (const service of GRPC_SERVICES) {
      const container = containerOf(deployments[service]);
      const listen =
        container.env?.find((variable) => variable.name === addressVariable(service))?.value ?? '';
      const { port } = splitAddress(listen);
      expect(
        servingPorts(container).map((entry) => entry.containerPort),
        service,
      ).toEqual([port]);
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
        expect(probe?.grpc?.port, service).toBe(port);
      }
    }
  });

  it('probes the edge and the proxy over HTTP on endpoints that ask no other process', () => {
    for (const service of EDGE_AND_PROXY) {
      const container = containerOf(deployments[service]);
      const port = container.ports?.[0]?.containerPort;
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
        expect(probe?.httpGet, service).toEqual({ path: HTTP_PROBES[service], port });
      }
    }
  });

  it('makes the proxy the front door on the public port, passing to the edge by EDGE_ADDR', () => {
    const config = named(manifests, ConfigMap, 'gw-config').data ?? {};
    const proxyPort = containerOf(deployments.proxy).ports?.[0]?.containerPort;
    expect(named(manifests, Service, 'proxy').spec?.ports?.map((entry) => entry.port)).toEqual([proxyPort]);
    expect(splitAddress(config.PROXY_ADDR ?? '')).toEqual({ host: 'proxy', port: proxyPort });
    expect(config.GW_EDGE_PORT).toBe(String(proxyPort));
    const edgePort = containerOf(deployments.edge).ports?.[0]?.containerPort;
    expect(named(manifests, Service, 'edge').spec?.ports?.map((entry) => entry.port)).toEqual([edgePort]);
    expect(splitAddress(config.EDGE_ADDR ?? '')).toEqual({ host: 'edge', port: edgePort });
  });

  it('puts a Service in front of every Deployment, selecting its pods and their port', () => {
    for (const service of ALL_SERVICES) {
      const front = named(manifests, Service, service);
      expect(
        selects(
          { matchLabels: front.spec?.selector ?? { none: 'selected' } },
          podLabels(deployments[service]),
        ),
      ).toBe(true);
      expect(front.spec?.ports?.map((port) => port.targetPort)).toEqual(
        servingPorts(containerOf(deployments[service])).map((port) => port.containerPort),
      );
    }
  });

  it('serves metrics from every pod on METRICS_ADDR, annotated for scraping, never through a Service', () => {
    const metricsAddress = named(manifests, ConfigMap, 'gw-config').data?.METRICS_ADDR ?? '';
    const { port } = splitAddress(metricsAddress);
    expect(port).toBeGreaterThan(0);
    for (const service of ALL_SERVICES) {
      const container = containerOf(deployments[service]);
      expect(
        container.env?.find((variable) => variable.name === 'METRICS_ADDR'),
        service,
      ).toBeUndefined();
      expect(container.ports?.find((entry) => entry.name === 'metrics')?.containerPort, service).toBe(port);
      expect(
        servingPorts(container).map((entry) => entry.containerPort),
        service,
      ).not.toContain(port);
      expect(deployments[service].spec?.template.metadata?.annotations, service).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      expect(named(manifests, Service, service).spec?.ports?.map((entry) => entry.port)).not.toContain(port);
    }
  });

  it('keeps every service available through voluntary disruptions, and autoscales the edge and the proxy', () => {
    for (const service of ALL_SERVICES) {
      const budget = named(manifests, PodDisruptionBudget, service);
      expect(selects(budget.spec?.selector ?? {}, podLabels(deployments[service])), service).toBe(true);
      expect(deployments[service].spec?.replicas, service).toBeGreaterThan(1);
    }
    const autoscaled = manifests.filter(
      (manifest): manifest is HorizontalPodAutoscaler => manifest instanceof HorizontalPodAutoscaler,
    );
    expect(
      autoscaled.map((hpa) => hpa.spec.scaleTargetRef).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual(EDGE_AND_PROXY.map((name) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name })));
  });

  it('gives every process an environment its own config schema accepts, once the Secret is filled in', async () => {
    const config = named(manifests, ConfigMap, 'gw-config').data ?? {};
    const committed = named(manifests, Secret, 'gw-secrets').stringData ?? {};
    const filledIn = {
      ...committed,
      GW_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
      GW_SECRET_KEY: randomBytes(32).toString('hex'),
      DATABASE_URL: 'postgres://gw:secret@postgres:5432/gw',
    };
    for (const service of ALL_SERVICES) {
      const container = containerOf(deployments[service]);
      expect(
        container.envFrom?.map((from) => from.configMapRef?.name ?? from.secretRef?.name),
        service,
      ).toEqual(['gw-config', 'gw-secrets']);
      const own = Object.fromEntries(
        (container.env ?? []).flatMap((variable) =>
          variable.value === undefined ? [] : [[variable.name, variable.value]],
        ),
      );
      await expect(
        loadServiceConfig(service, { ...config, ...filledIn, ...own }),
        service,
      ).resolves.toBeUndefined();
    }
    // The committed placeholders are refused at start by every service: the base cannot run unconfigured.
    for (const service of ALL_SERVICES) {
      await expect(loadServiceConfig(service, { ...config, ...committed }), service).rejects.toThrow(
        /GW_INTERNAL_TOKEN/,
      );
    }
  });

  describe('NetworkPolicies', () => {
    const pod = (service: ServiceName): Peer => ({ labels: podLabels(deployments[service]) });
    const portOf = (service: ServiceName) => containerOf(deployments[service]).ports?.[0]?.containerPort ?? 0;

    it('let only the proxy, the front door, be reached from outside', () => {
      expect(canConnect(policies, INTERNET, pod('proxy'), portOf('proxy'))).toBe(true);
      for (const service of ALL_SERVICES.filter((name) => name !== 'proxy')) {
        expect(canConnect(policies, INTERNET, pod(service), portOf(service)), service).toBe(false);
      }
    });

    it('let the proxy alone reach the edge', () => {
      expect(canConnect(policies, pod('proxy'), pod('edge'), portOf('edge'))).toBe(true);
      for (const service of ALL_SERVICES.filter((name) => name !== 'proxy' && name !== 'edge')) {
        expect(canConnect(policies, pod(service), pod('edge'), portOf('edge')), service).toBe(false);
      }
    });

    it('keep every metrics port closed to the outside and to the gateway’s own pods', () => {
      for (const service of ALL_SERVICES) {
        expect(canConnect(policies, INTERNET, pod(service), 9464), service).toBe(false);
        expect(canConnect(policies, pod('edge'), pod(service), 9464), service).toBe(false);
      }
    });

    it('let the gateway’s pods call every internal service', () => {
      for (const target of ALL_SERVICES.filter((name) => name !== 'edge')) {
        expect(canConnect(policies, pod('edge'), pod(target), portOf(target)), `edge → ${target}`).toBe(true);
      }
      expect(canConnect(policies, pod('proxy'), pod('keypool'), portOf('keypool'))).toBe(true);
      expect(canConnect(policies, pod('billing'), pod('accounts'), portOf('accounts'))).toBe(true);
    });

    it('let every pod resolve names and reach PostgreSQL, Redis and NATS', () => {
      for (const service of ALL_SERVICES) {
        expect(canConnect(policies, pod(service), { address: '10.0.0.10' }, 53, 'UDP'), service).toBe(true);
        for (const port of [5432, 6379, 4222]) {
          expect(
            canConnect(policies, pod(service), { address: '10.0.0.20' }, port),
            `${service} → ${port}`,
          ).toBe(true);
        }
      }
    });

    it('let only the proxy (any port) and the mailer (SMTP) reach out', () => {
      for (const service of ALL_SERVICES) {
        expect(canConnect(policies, pod(service), INTERNET, 443), `${service} → :443`).toBe(
          service === 'proxy',
        );
        expect(canConnect(policies, pod(service), INTERNET, 587), `${service} → :587`).toBe(
          service === 'proxy' || service === 'mailer',
        );
      }
    });
  });
});
