// DescribeConfigs / IncrementalAlterConfigs / AlterConfigs over topic and broker resources,
// following ConfigurationControlManager, ControllerConfigurationValidator and ConfigAdminManager.
import {
  ALTER_OP_NAMES,
  AlterConfigOp,
  BROKER_CONFIG_DEFS,
  ConfigSource,
  ConfigType,
  ResourceType,
  TOPIC_CONFIG_DEFS,
  brokerConfigDef,
  javaSplitComma,
  validateConfigValue,
  type ConfigDef,
} from './configs.js';
import { ErrorCode, KafkaError } from './errors.js';
import { validateTopicName, type TopicState } from './topics.js';

export interface ConfigResourceRef {
  /** 2 = TOPIC, 4 = BROKER. */
  type: number;
  /** Topic name; broker id as a string, or "" for the cluster-wide default. */
  name: string;
}

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

export interface DescribeConfigsEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  /** v0 field: source is DEFAULT_CONFIG. */
  isDefault: boolean;
  source: number;
  isSensitive: boolean;
  synonyms: ConfigSynonym[];
  configType: number;
  documentation: string | null;
}

export interface IncrementalAlterOp {
  name: string;
  /** 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT. */
  op: number;
  value: string | null;
}

export interface LegacyAlterConfig {
  name: string;
  value: string | null;
}

export interface ConfigRequestOptions {
  /**
   * The broker serving the request. When given, BROKER resources other than "" and this id are
   * refused as Kafka's ConfigAdminManager/ConfigHelper refuse them.
   */
  nodeId?: number;
}

export interface ConfigHost {
  getTopic(name: string): TopicState | undefined;
  isRegisteredBroker(id: number): boolean;
  /** STATIC_BROKER_CONFIG layer of one broker (server.properties). */
  staticBrokerConfigs(id: number): Map<string, string>;
  /** The topic configs of the release simulated (configs.topicConfigDefsFor); default 3.9's. */
  readonly topicConfigDefs?: readonly ConfigDef[];
}

const invalidRequest = (m: string) => new KafkaError(ErrorCode.INVALID_REQUEST, m);
const invalidConfig = (m: string) => new KafkaError(ErrorCode.INVALID_CONFIG, m);

function entry(
  def: ConfigDef | undefined,
  name: string,
  value: string | null,
  source: number,
  synonyms: ConfigSynonym[],
  readOnly: boolean,
): DescribeConfigsEntry {
  const sensitive = def?.sensitive === true || def?.type === 'PASSWORD';
  return {
    name,
    value: sensitive ? null : value,
    readOnly,
    isDefault: source === ConfigSource.DEFAULT_CONFIG,
    source,
    isSensitive: sensitive,
    synonyms: sensitive ? synonyms.map((s) => ({ ...s, value: null })) : synonyms,
    configType: def ? ConfigType[def.type] : ConfigType.STRING,
    documentation: def?.documentation ?? null,
  };
}

function duplicateCheck(names: readonly string[]): void {
  if (new Set(names).size !== names.length) throw invalidRequest('Error due to duplicate config keys');
}

/** ConfigurationControlManager.getParts */
function getParts(value: string | null, def: ConfigDef | undefined): string[] {
  const v = value ?? def?.defaultValue ?? null;
  if (v === null) return [];
  return v.split(',').filter((s) => s !== '');
}

export class ConfigRegistry {
  /** Dynamic broker configs: "" = cluster default, "<id>" = one broker. */
  private readonly brokerDynamic = new Map<string, Map<string, string>>();

  private readonly topicDefs: readonly ConfigDef[];
  private readonly topicByName: ReadonlyMap<string, ConfigDef>;

  constructor(private readonly host: ConfigHost) {
    this.topicDefs = host.topicConfigDefs ?? TOPIC_CONFIG_DEFS;
    this.topicByName = new Map(this.topicDefs.map((d) => [d.name, d]));
  }

  private topicConfigDef(name: string): ConfigDef | undefined {
    return this.topicByName.get(name);
  }

  // ---------- reads ----------

  /** Dynamic broker configs of a resource ("" or an id), as stored. */
  brokerConfigs(name: string): Record<string, string> {
    return Object.fromEntries(this.brokerDynamic.get(name) ?? []);
  }

  /** Value of a broker config on one broker through all layers (null = unset and no default). */
  effectiveBrokerValue(brokerId: number, name: string): string | null {
    return (
      this.brokerDynamic.get(String(brokerId))?.get(name) ??
      this.brokerDynamic.get('')?.get(name) ??
      this.host.staticBrokerConfigs(brokerId).get(name) ??
      brokerConfigDef(name)?.defaultValue ??
      null
    );
  }

  /** Effective value of a topic config (override, then cluster-default broker synonym, then default). */
  effectiveTopicValue(overrides: ReadonlyMap<string, string>, name: string): string | null {
    const def = this.topicConfigDef(name);
    const o = overrides.get(name);
    if (o !== undefined) return o;
    if (def?.dynamicSynonym) {
      const d = this.brokerDynamic.get('')?.get(def.dynamicSynonym);
      if (d !== undefined) return d;
    }
    return def?.defaultValue ?? null;
  }

  topicEntries(overrides: ReadonlyMap<string, string>, keys: readonly string[] | null): DescribeConfigsEntry[] {
    const out: DescribeConfigsEntry[] = [];
    for (const def of this.topicDefs) {
      if (keys !== null && !keys.includes(def.name)) continue;
      const synonyms: ConfigSynonym[] = [];
      const o = overrides.get(def.name);
      if (o !== undefined) synonyms.push({ name: def.name, value: o, source: ConfigSource.TOPIC_CONFIG });
      let fallback: { value: string | null; source: number } = {
        value: def.defaultValue,
        source: ConfigSource.DEFAULT_CONFIG,
      };
      if (def.dynamicSynonym) {
        const d = this.brokerDynamic.get('')?.get(def.dynamicSynonym);
        if (d !== undefined) {
          synonyms.push({ name: def.dynamicSynonym, value: d, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
          fallback = { value: d, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG };
        }
      }
      if (def.brokerSynonym) {
        synonyms.push({ name: def.brokerSynonym.name, value: def.brokerSynonym.value, source: ConfigSource.DEFAULT_CONFIG });
      }
      const e =
        o !== undefined
          ? entry(def, def.name, o, ConfigSource.TOPIC_CONFIG, synonyms, false)
          : entry(def, def.name, fallback.value, fallback.source, synonyms, false);
      out.push(e);
    }
    return out;
  }

  private brokerEntries(resourceName: string, keys: readonly string[] | null): DescribeConfigsEntry[] {
    const include = (n: string) => keys === null || keys.includes(n);
    const clusterDefault = this.brokerDynamic.get('') ?? new Map<string, string>();
    if (resourceName === '') {
      // ConfigHelper: the default resource lists only what is set at the cluster-default level.
      return [...clusterDefault.entries()]
        .filter(([n]) => include(n))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([n, v]) => {
          const def = brokerConfigDef(n);
          const syn: ConfigSynonym[] = [{ name: n, value: v, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG }];
          if (def?.defaultValue != null && !def.onlyWhenSet)
            syn.push({ name: n, value: def.defaultValue, source: ConfigSource.DEFAULT_CONFIG });
          return entry(def, n, v, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, syn, def ? !def.dynamic : false);
        });
    }
    const id = Number(resourceName);
    const perBroker = this.brokerDynamic.get(resourceName) ?? new Map<string, string>();
    const statics = this.host.staticBrokerConfigs(id);
    const names = new Set<string>(BROKER_CONFIG_DEFS.filter((d) => !d.onlyWhenSet).map((d) => d.name));
    for (const n of perBroker.keys()) names.add(n);
    for (const n of clusterDefault.keys()) names.add(n);
    for (const n of statics.keys()) names.add(n);
    const out: DescribeConfigsEntry[] = [];
    for (const n of [...names].sort()) {
      if (!include(n)) continue;
      const def = brokerConfigDef(n);
      const layers: ConfigSynonym[] = [];
      const p = perBroker.get(n);
      if (p !== undefined) layers.push({ name: n, value: p, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
      const c = clusterDefault.get(n);
      if (c !== undefined) layers.push({ name: n, value: c, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
      const s = statics.get(n);
      if (s !== undefined) layers.push({ name: n, value: s, source: ConfigSource.STATIC_BROKER_CONFIG });
      if (def && def.defaultValue !== null && !def.onlyWhenSet) {
        layers.push({ name: n, value: def.defaultValue, source: ConfigSource.DEFAULT_CONFIG });
      }
      const top = layers[0] ?? { name: n, value: null, source: ConfigSource.DEFAULT_CONFIG };
      out.push(entry(def, n, top.value, top.source, layers, def ? !def.dynamic : false));
    }
    return out;
  }

  /** DescribeConfigs for one resource. keys null = every config; [] = none (as Kafka). */
  describe(resource: ConfigResourceRef, keys: readonly string[] | null, opts: ConfigRequestOptions = {}): DescribeConfigsEntry[] {
    if (resource.type === ResourceType.TOPIC) {
      validateTopicName(resource.name);
      const topic = this.host.getTopic(resource.name);
      if (!topic) {
        throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${resource.name}' does not exist.`);
      }
      return this.topicEntries(topic.configs, keys);
    }
    if (resource.type === ResourceType.BROKER) {
      if (resource.name !== '') {
        if (!/^-?[0-9]+$/.test(resource.name)) {
          throw invalidRequest(`Broker id must be an integer, but it is: ${resource.name}`);
        }
        const id = Number(resource.name);
        if (opts.nodeId !== undefined && id !== opts.nodeId) {
          throw invalidRequest(`Unexpected broker id, expected ${opts.nodeId} or empty string, but received ${resource.name}`);
        }
        if (!this.host.isRegisteredBroker(id)) {
          throw new KafkaError(ErrorCode.BROKER_ID_NOT_REGISTERED, `No node with id ${id} found.`);
        }
        return this.brokerEntries(String(id), keys);
      }
      return this.brokerEntries('', keys);
    }
    throw invalidRequest(`Unsupported resource type ${resource.type}`);
  }

  // ---------- validation helpers ----------

  private checkTopicResource(name: string): void {
    if (name === '') throw invalidRequest('Default topic resources are not allowed.');
    validateTopicName(name);
  }

  /** LogConfig.validate over a full topic config map; throws INVALID_CONFIG. */
  validateTopicConfigs(configs: ReadonlyMap<string, string | null>): void {
    const nulls = [...configs].filter(([, v]) => v === null).map(([n]) => n);
    if (nulls.length > 0) throw invalidConfig(`Null value not supported for topic configs: ${nulls.join(',')}`);
    for (const n of configs.keys()) {
      if (!this.topicConfigDef(n)) throw invalidConfig(`Unknown topic config name: ${n}`);
    }
    for (const [n, v] of configs) {
      const err = validateConfigValue(this.topicConfigDef(n)!, v as string);
      if (err) throw invalidConfig(err);
    }
  }

  /** Resolve a BROKER resource name for an alter; returns the storage key ("" or the id). */
  private checkBrokerResource(name: string, opts: ConfigRequestOptions): string {
    if (name === '') return '';
    if (!/^-?[0-9]+$/.test(name) || Number(name) > 2147483647 || Number(name) < -2147483648) {
      throw invalidRequest(`Node id must be an integer, but it is: ${name}`);
    }
    const id = Number(name);
    if (opts.nodeId !== undefined && id !== opts.nodeId) {
      throw invalidRequest(`Unexpected broker id, expected ${opts.nodeId}, but received ${name}`);
    }
    if (id < 0) throw invalidRequest('Invalid negative broker ID.');
    if (!this.host.isRegisteredBroker(id)) {
      throw new KafkaError(ErrorCode.BROKER_ID_NOT_REGISTERED, `No node with id ${id} found.`);
    }
    return String(id);
  }

  /** DynamicBrokerConfig.validate, errors surfaced as INVALID_REQUEST (KAFKA-13609). */
  private validateBrokerConfigs(props: ReadonlyMap<string, string>): void {
    const nonDynamic = [...props.keys()].filter((n) => {
      const d = brokerConfigDef(n);
      return d !== undefined && !d.dynamic;
    });
    if (nonDynamic.length > 0) {
      throw invalidRequest(`Cannot update these configs dynamically: Set(${nonDynamic.join(', ')})`);
    }
    for (const [n, v] of props) {
      const def = brokerConfigDef(n);
      if (!def) continue; // Kafka accepts (and stores) names it does not know
      const err = validateConfigValue(def, v);
      if (err) throw invalidRequest(err);
    }
  }

  // ---------- writes ----------

  /** IncrementalAlterConfigs for one resource: all ops validated first, then applied atomically. */
  incrementalAlter(
    resource: ConfigResourceRef,
    ops: readonly IncrementalAlterOp[],
    validateOnly = false,
    opts: ConfigRequestOptions = {},
  ): void {
    duplicateCheck(ops.map((o) => o.name));
    for (const o of ops) {
      if (!(o.op in ALTER_OP_NAMES)) throw invalidRequest(`Unknown operations type ${o.op}`);
    }
    const nulls = ops.filter((o) => o.op !== AlterConfigOp.DELETE && o.value === null).map((o) => o.name);
    if (nulls.length > 0) throw invalidRequest(`Null value not supported for : ${nulls.join(', ')}`);

    if (resource.type === ResourceType.TOPIC) {
      this.checkTopicResource(resource.name);
      const topic = this.host.getTopic(resource.name);
      const next = new Map<string, string>(topic?.configs ?? []);
      for (const o of ops) {
        const def = this.topicConfigDef(o.name);
        switch (o.op) {
          case AlterConfigOp.SET:
            next.set(o.name, o.value as string);
            break;
          case AlterConfigOp.DELETE:
            next.delete(o.name);
            break;
          default: {
            if (def?.type !== 'LIST') {
              throw invalidConfig(`Can't ${ALTER_OP_NAMES[o.op]} to key ${o.name} because its type is not LIST.`);
            }
            const parts = getParts(next.get(o.name) ?? null, def);
            for (const v of javaSplitComma(o.value as string)) {
              if (o.op === AlterConfigOp.APPEND) {
                if (!parts.includes(v)) parts.push(v);
              } else {
                const i = parts.indexOf(v);
                if (i >= 0) parts.splice(i, 1);
              }
            }
            next.set(o.name, parts.join(','));
          }
        }
      }
      this.validateTopicConfigs(next);
      this.replaceTopicConfigs(resource.name, next, validateOnly);
      return;
    }

    if (resource.type === ResourceType.BROKER) {
      const key = this.checkBrokerResource(resource.name, opts);
      const next = new Map<string, string>(this.brokerDynamic.get(key) ?? []);
      for (const o of ops) {
        switch (o.op) {
          case AlterConfigOp.SET:
            next.set(o.name, o.value as string);
            break;
          case AlterConfigOp.DELETE:
            next.delete(o.name);
            break;
          default: {
            // KRaft's controller (ConfigurationControlManager): 40 for any key that is not a list.
            const def = brokerConfigDef(o.name);
            if (def?.type !== 'LIST') {
              throw invalidConfig(`Can't ${ALTER_OP_NAMES[o.op]} to key ${o.name} because its type is not LIST.`);
            }
            const old = (next.get(o.name) ?? def.defaultValue ?? '').split(',');
            const vals = (o.value as string).split(',');
            const nv = o.op === AlterConfigOp.APPEND ? [...old, ...vals] : old.filter((x) => !vals.includes(x));
            next.set(o.name, nv.join(','));
          }
        }
      }
      this.validateBrokerConfigs(next);
      if (!validateOnly) this.storeBroker(key, next);
      return;
    }
    throw invalidRequest(`Unknown resource type ${resource.type}`);
  }

  /** Legacy AlterConfigs: the given configs REPLACE every dynamic config of the resource. */
  legacyAlter(
    resource: ConfigResourceRef,
    configs: readonly LegacyAlterConfig[],
    validateOnly = false,
    opts: ConfigRequestOptions = {},
  ): void {
    duplicateCheck(configs.map((c) => c.name));
    const nulls = configs.filter((c) => c.value === null).map((c) => c.name);
    if (nulls.length > 0) throw invalidRequest(`Null value not supported for : ${nulls.join(', ')}`);
    const next = new Map<string, string>(configs.map((c) => [c.name, c.value as string]));

    if (resource.type === ResourceType.TOPIC) {
      this.checkTopicResource(resource.name);
      this.validateTopicConfigs(next);
      this.replaceTopicConfigs(resource.name, next, validateOnly);
      return;
    }
    if (resource.type === ResourceType.BROKER) {
      const key = this.checkBrokerResource(resource.name, opts);
      this.validateBrokerConfigs(next);
      if (!validateOnly) this.storeBroker(key, next);
      return;
    }
    throw invalidRequest(`Unknown resource type ${resource.type}`);
  }

  /** The last step of both alter APIs: the validated set becomes the topic's overrides. */
  private replaceTopicConfigs(name: string, next: ReadonlyMap<string, string>, validateOnly: boolean): void {
    const topic = this.host.getTopic(name);
    if (!topic) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
    if (validateOnly) return;
    topic.configs.clear();
    for (const [k, v] of next) topic.configs.set(k, v);
  }

  private storeBroker(key: string, configs: Map<string, string>): void {
    if (configs.size === 0) this.brokerDynamic.delete(key);
    else this.brokerDynamic.set(key, configs);
  }
}
