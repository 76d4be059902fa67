// How handlers turn model outcomes into per-item error fields. The model throws only
// KafkaError for bad input; anything else is a simulator bug, reported as
// UNKNOWN_SERVER_ERROR (-1) for that item rather than killing the connection.
import { KafkaError } from '../cluster/errors.js';

export interface ItemError {
  errorCode: number;
  errorMessage: string | null;
}

export const OK: ItemError = { errorCode: 0, errorMessage: null };

export function itemError(err: unknown): ItemError {
  if (err instanceof KafkaError) return { errorCode: err.code, errorMessage: err.wireMessage };
  return { errorCode: -1, errorMessage: `simulator error: ${(err as Error)?.message ?? String(err)}` };
}

/** Runs fn, and returns OK or the error it threw, as item fields. */
export function attempt(fn: () => void): ItemError {
  try {
    fn();
    return OK;
  } catch (err) {
    return itemError(err);
  }
}

/**
 * True when this broker must refuse a controller request: only in ZooKeeper mode
 * (runtime.notControllerErrors); KRaft brokers forward to the controller.
 */
export function notController(ctx: {
  brokerId: number;
  runtime: { notControllerErrors: boolean; model: { controllerId: number } };
}): boolean {
  return ctx.runtime.notControllerErrors && ctx.brokerId !== ctx.runtime.model.controllerId;
}

export const NOT_CONTROLLER: ItemError = { errorCode: 41, errorMessage: 'This is not the correct controller for this cluster.' };

/**
 * ConfigAdminManager.preprocess (IncrementalAlterConfigs and AlterConfigs alike): a resource
 * (type, name) named more than once is refused, every occurrence, before anything is applied.
 */
export const DUPLICATE_RESOURCE: ItemError = { errorCode: 42, errorMessage: 'Each resource must appear at most once.' };

/** Indexes of the resources whose (type, name) appears more than once in the request. */
export function duplicateResources(resources: readonly { resourceType: number; resourceName: string }[]): Set<number> {
  const firstAt = new Map<string, number>();
  const out = new Set<number>();
  resources.forEach((r, i) => {
    const key = `${r.resourceType}:${r.resourceName}`;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, i);
    else out.add(first).add(i);
  });
  return out;
}

/** Value of authorized-operations fields when the client did not ask for them. */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/**
 * Authorized operations as a broker without an authorizer answers them when asked: every
 * operation the resource type supports (AuthHelper.authorizedOperations: `authorizer` None ->
 * AclEntry.supportedOperations(resourceType)), as a bit field of AclOperation codes
 * (Utils.to32BitField). TOPIC: READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8,
 * DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11 = 3576.
 */
export const TOPIC_AUTHORIZED_OPERATIONS = opsBits([3, 4, 5, 6, 7, 8, 10, 11]);

/** CLUSTER: CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12 = 8096. */
export const CLUSTER_AUTHORIZED_OPERATIONS = opsBits([5, 7, 8, 9, 10, 11, 12]);

function opsBits(codes: number[]): number {
  return codes.reduce((bits, code) => bits | (1 << code), 0);
}
