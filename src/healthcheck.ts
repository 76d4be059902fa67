// Container HEALTHCHECK: GET /healthz on this container's own port, over HTTPS when the
// gateway serves HTTPS. Node-only (the runtime image has no curl). Exit 0 = healthy.
// Liveness only: /healthz never calls Kafka, so a Kafka outage does not get a healthy
// gateway restarted; readiness (/readyz) is for load balancers and orchestrators.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const port = Number(process.env.PORT?.trim() || 8080);
const tls = Boolean(process.env.GATEWAY_TLS_CERT_FILE?.trim());
// Loopback to ourselves: the certificate names the public host, not 127.0.0.1.
const req = (tls ? httpsRequest : httpRequest)(
  { host: '127.0.0.1', port, path: '/healthz', timeout: 2500, rejectUnauthorized: false },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
req.end();
