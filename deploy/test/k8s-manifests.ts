import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';

/** The kinds the base may hold, each with the model that validates it against its schema. */
const MODELS = [
  ConfigMap,
  Secret,
  Service,
  Deployment,
  PodDisruptionBudget,
  HorizontalPodAutoscaler,
  NetworkPolicy,
];

export type Manifest = InstanceType<(typeof MODELS)[number]>;

/**
 * Builds the model of an object's kind and validates it against the Kubernetes schema
 * (kubernetes-models), throwing with the file, the kind, the name and what is wrong. A kind this
 * base does not use is refused as well.
 */
export function validateManifest(object: Record<string, unknown>, source: string): Manifest {
  const Model = MODELS.find((model) => model.apiVersion === object.apiVersion && model.kind === object.kind);
  const name = (object.metadata as { name?: string } | undefined)?.name ?? '(no name)';
  if (!Model) {
    throw new Error(
      `${source}: ${String(object.apiVersion)} ${String(object.kind)} is not a kind this base uses`,
    );
  }
  const manifest = new Model(object as never);
  try {
    manifest.validate();
  } catch (error) {
    throw new Error(`${source}: ${Model.kind} ${name}: ${String(error)}`);
  }
  return manifest;
}

/** Every object of the kustomize base, from the files of its `resources:` list, each validated. */
export function loadBase(dir: string): { resources: string[]; manifests: Manifest[] } {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
    resources: string[];
  };
  const manifests = kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
      if (doc.errors.length > 0) {
        throw new Error(`${file}: ${doc.errors.map(String).join('; ')}`);
      }
      return validateManifest(doc.toJS() as Record<string, unknown>, file);
    }),
  );
  return { resources: kustomization.resources, manifests };
}
