// Broker registry: ids, racks, up/down (KRaft unfenced/fenced) and the active controller.
import { ErrorCode, KafkaError } from './errors.js';

export interface BrokerSpec {
  id: number;
  rack: string | null;
}

export interface BrokerInfo {
  id: number;
  rack: string | null;
  /** Running and unfenced. A stopped broker stays registered (fenced). */
  up: boolean;
}

export class BrokerRegistry {
  private readonly brokers = new Map<number, BrokerInfo>();
  private controller: number;

  constructor(specs: readonly BrokerSpec[], controllerId?: number) {
    if (specs.length === 0) throw new KafkaError(ErrorCode.INVALID_REQUEST, 'A cluster needs at least one broker.');
    for (const s of [...specs].sort((a, b) => a.id - b.id)) {
      if (!Number.isInteger(s.id) || s.id < 0 || s.id > 2147483647) {
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Invalid broker id ${s.id}: broker ids are non-negative 32-bit integers.`);
      }
      if (this.brokers.has(s.id)) throw new KafkaError(ErrorCode.INVALID_REQUEST, `Duplicate broker id ${s.id}.`);
      this.brokers.set(s.id, { id: s.id, rack: s.rack ?? null, up: true });
    }
    if (controllerId !== undefined && !this.brokers.has(controllerId)) {
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Controller id ${controllerId} is not one of the brokers.`);
    }
    this.controller = controllerId ?? Math.min(...this.brokers.keys());
  }

  get controllerId(): number {
    return this.controller;
  }

  list(): BrokerInfo[] {
    return [...this.brokers.values()].map((b) => ({ ...b }));
  }

  isRegistered(id: number): boolean {
    return this.brokers.has(id);
  }

  isUp(id: number): boolean {
    return this.brokers.get(id)?.up === true;
  }

  get(id: number): BrokerInfo {
    const b = this.brokers.get(id);
    if (!b) throw new KafkaError(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ${id} is not registered.`);
    return b;
  }

  /** Returns false when the broker was already in that state. */
  setUp(id: number, up: boolean): boolean {
    const b = this.get(id);
    if (b.up === up) return false;
    b.up = up;
    if (!up && this.controller === id) this.controller = this.lowestLive();
    if (up && this.controller === -1) this.controller = id;
    return true;
  }

  private lowestLive(): number {
    for (const b of this.brokers.values()) if (b.up) return b.id; // map is sorted by id
    return -1;
  }
}
