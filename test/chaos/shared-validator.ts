// One request validator for every gateway app of this process. Each createApp builds its own
// validator (src/http/validator-chain.ts), which loads, checks and compiles openapi.yaml at the
// app's first request: ~150-200 ms of CPU per app, most of a chaos run's CPU when every run starts
// two to four instances (240 seeds: ~46 s shared, ~140 s not: Kafka requests, 233 ms timeout
// here, time out on the starved loop and POSTs answer 503). The validator is the same for every
// app built with the same spec and options, so the harness asks src/http/validation.ts to hand
// the first one built to every later app (see shareValidatorsAcrossApps for the one app-bound
// step). Behaviour of the gateway is unchanged: the same validation runs on every request.
//
// (Until the validator chain, the harness replaced express-openapi-validator's `middleware`
// export; the gateway no longer calls it, so that replacement silently did nothing.)
import { shareValidatorsAcrossApps } from '../../src/http/validation.js';

shareValidatorsAcrossApps();
