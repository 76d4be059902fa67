// Test support: an app over a Kafka layer in one call. The services' options (kafka,
// reassignments, configs, quota, stateTopic) build the services as src/main.ts does
// (createGatewayServices, src/services/index.ts); the rest goes to createApp as it is.
import type { Express } from 'express';
import { createApp, type AppOptions } from '../../src/http/app.js';
import { createGatewayServices, type GatewayServicesOptions } from '../../src/services/index.js';

export type AppOverKafkaOptions = Omit<AppOptions, 'services'> & GatewayServicesOptions;

export function appOverKafka(opts: AppOverKafkaOptions): Express {
  const { kafka, reassignments, configs, quota, stateTopic, topicReadMaxAgeMs, ...app } = opts;
  const services = createGatewayServices({
    kafka,
    ...(reassignments && { reassignments }),
    ...(configs && { configs }),
    ...(quota && { quota }),
    ...(stateTopic && { stateTopic }),
    ...(topicReadMaxAgeMs !== undefined && { topicReadMaxAgeMs }),
  });
  return createApp({ ...app, services });
}
