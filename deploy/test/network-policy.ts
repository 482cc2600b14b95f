import type {
  INetworkPolicyPeer,
  INetworkPolicyPort,
  NetworkPolicy,
} from 'kubernetes-models/networking.k8s.io/v1';

type LabelSelector = NonNullable<NonNullable<NetworkPolicy['spec']>['podSelector']>;

/** One end of a connection: a pod of the namespace (by its labels) or an address outside it. */
export type Peer = { labels: Record<string, string> } | { address: string };

export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const value = labels[key];
    switch (operator) {
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        throw new Error(`unknown selector operator ${operator}`);
    }
  });
  return byLabel && byExpression;
}

function ipv4(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

/** IPv4 only: the addresses the tests ask about are IPv4. */
function inCidr(address: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  if (base.includes(':')) {
    return false;
  }
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(address) / size) === Math.floor(ipv4(base) / size);
}

function peerMatches(rulePeers: INetworkPolicyPeer[] | undefined, peer: Peer): boolean {
  if (rulePeers === undefined || rulePeers.length === 0) {
    return true;
  }
  return rulePeers.some(({ ipBlock, podSelector, namespaceSelector }) => {
    if ('address' in peer) {
      return (
        ipBlock !== undefined &&
        inCidr(peer.address, ipBlock.cidr) &&
        !(ipBlock.except ?? []).some((cidr) => inCidr(peer.address, cidr))
      );
    }
    // A pod of the same namespace: a podSelector without a namespaceSelector.
    return podSelector !== undefined && namespaceSelector === undefined && selects(podSelector, peer.labels);
  });
}

function portMatches(ports: INetworkPolicyPort[] | undefined, port: number, protocol: string): boolean {
  return (
    ports === undefined ||
    ports.length === 0 ||
    ports.some(
      (entry) => (entry.protocol ?? 'TCP') === protocol && (entry.port === undefined || entry.port === port),
    )
  );
}

/**
 * Whether the policies let traffic through in one direction for one pod: allowed when no policy
 * of that direction selects the pod, else when a rule of a selecting policy matches the peer and
 * the port (the Kubernetes semantics, for the selectors and peers this base uses).
 */
function allowed(
  policies: NetworkPolicy[],
  direction: 'Ingress' | 'Egress',
  pod: Record<string, string>,
  peer: Peer,
  port: number,
  protocol: string,
): boolean {
  const selecting = policies.filter(
    ({ spec }) =>
      spec !== undefined &&
      selects(spec.podSelector ?? {}, pod) &&
      (spec.policyTypes ?? ['Ingress']).includes(direction),
  );
  if (selecting.length === 0) {
    return true;
  }
  return selecting.some(({ spec }) =>
    direction === 'Ingress'
      ? (spec?.ingress ?? []).some(
          (rule) => peerMatches(rule.from, peer) && portMatches(rule.ports, port, protocol),
        )
      : (spec?.egress ?? []).some(
          (rule) => peerMatches(rule.to, peer) && portMatches(rule.ports, port, protocol),
        ),
  );
}

/** Can `from` open a connection to `to` on this port? The sender's egress and the receiver's ingress must both allow it. */
export function canConnect(
  policies: NetworkPolicy[],
  from: Peer,
  to: Peer,
  port: number,
  protocol = 'TCP',
): boolean {
  const leaves = 'labels' in from ? allowed(policies, 'Egress', from.labels, to, port, protocol) : true;
  const enters = 'labels' in to ? allowed(policies, 'Ingress', to.labels, from, port, protocol) : true;
  return leaves && enters;
}
