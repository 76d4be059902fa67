// Partition increases (one topic or many in one CreatePartitions): a controller mutation, so
// through the quota admission (src/services/quotas/mutation-admission.ts) for the call's caller.
import type { PartitionIncrease } from '../kafka/types.js';
import type { MutationAdmission, MutationCall, MutationOutcome } from './quotas/mutation-admission.js';
import { createPartitionsMutation } from './topic-mutations.js';

export type { PartitionIncrease };

export class PartitionService {
  readonly #admission: MutationAdmission;

  constructor(admission: MutationAdmission) {
    this.#admission = admission;
  }

  increase(call: MutationCall, increases: PartitionIncrease[], validateOnly: boolean): Promise<MutationOutcome<null>> {
    return this.#admission.run(call, createPartitionsMutation(increases, validateOnly));
  }
}
