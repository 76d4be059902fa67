// bin/gateway.sh's helper for GATEWAY_WORKER_THREAD=auto: decides, before the gateway starts,
// whether it will run the reassignment worker thread, because node's memory flags are fixed when
// node starts and the two runtimes want different ones (docs/worker-thread.md, "Default"):
// without the worker the one thread that holds the reassignments wants a 16 MiB semi-space (a
// 10,000-partition start 25-40 % slower with 2 MiB); with the worker the HTTP thread holds none
// of them, and 16 MiB of semi-space there is ~28 MiB of RSS for nothing at 100,000 partitions.
//
// Prints one line, `on <reason>` or `off <reason>`, from the same choice src/main.ts makes
// (choice.ts) over the same count; bin/gateway.sh then sets GATEWAY_WORKER_THREAD to it and
// passes the reason on for the gateway's log. Prints nothing (exit 1) when it cannot decide
// (the configuration is invalid, or Kafka is not answering within PROBE_TIMEOUT_MS): the gateway
// then decides itself and reports the problem with its own error messages.
import { loadGatewayConfig } from '../config.js';
import { chooseWorkerThread, countClusterPartitions, parseWorkerThreadSetting, type WorkerThreadChoice } from './choice.js';

/** How long the launcher waits for Kafka's answer before leaving the choice to the gateway. */
const PROBE_TIMEOUT_MS = 15_000;

/** `on <reason>` or `off <reason>`, as the gateway would log it. */
const lineOf = (choice: WorkerThreadChoice): string => `${choice.workerThread ? 'on' : 'off'} ${choice.reason}`;

async function probe(): Promise<string | null> {
  const setting = parseWorkerThreadSetting(process.env);
  if (setting.mode !== 'auto') return lineOf(chooseWorkerThread(setting, null));
  const config = loadGatewayConfig(process.env);
  // The embedded demo cluster (a few topics) is started by the gateway itself: never large.
  if (config.kafka.mode === 'embedded') return lineOf(chooseWorkerThread(setting, 'embedded'));
  // Loaded only here: on, off and the embedded demo answer without the Kafka client.
  const { createKafkaGateway } = await import('../kafka/admin.js');
  const kafka = createKafkaGateway(config.kafka.config);
  let timer: NodeJS.Timeout | undefined;
  try {
    const partitions = await Promise.race([
      countClusterPartitions(kafka),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PROBE_TIMEOUT_MS))),
    ]);
    return partitions === null ? null : lineOf(chooseWorkerThread(setting, partitions));
  } finally {
    clearTimeout(timer);
    await kafka.close().catch(() => undefined);
  }
}

probe().then(
  (line) => {
    if (line === null) process.exit(1);
    process.stdout.write(`${line}\n`);
    process.exit(0);
  },
  () => process.exit(1),
);
