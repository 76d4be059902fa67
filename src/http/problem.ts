// RFC 9457 problem details. Every error response of the gateway goes through here so
// the media type, the `type` URI scheme and the body shape are the same everywhere.
import type { Response } from 'express';
import type { components } from './openapi-types.js';

export type Problem = components['schemas']['Problem'];
export type ValidationError = components['schemas']['ValidationError'];

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
export const PROBLEM_TYPE_BASE = 'https://kafka-admin-gateway.dev/problems/';

export function problemType(slug: string): string {
  return PROBLEM_TYPE_BASE + slug;
}

/** TOPIC_ALREADY_EXISTS -> topic-already-exists (the problem-type slug of a Kafka error). */
export function kafkaSlug(kafkaErrorName: string): string {
  return (
    kafkaErrorName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'unknown-kafka-error'
  );
}

/** TOPIC_ALREADY_EXISTS -> "Topic already exists": a stable, human title per problem type. */
export function kafkaTitle(kafkaErrorName: string): string {
  const words = kafkaErrorName.toLowerCase().split('_').filter(Boolean).join(' ');
  return words ? words[0].toUpperCase() + words.slice(1) : 'Kafka error';
}

/** A problem ready to send: the body plus the headers that belong to it (Retry-After, Allow). */
export interface HttpProblem {
  problem: Problem;
  headers?: Record<string, string>;
}

export function sendProblem(res: Response, { problem, headers }: HttpProblem): void {
  if (headers) res.set(headers);
  // Content-Type is set before res.json(), which keeps a type that is already set;
  // the response validator then checks the body against the problem+json schema.
  res.status(problem.status).type(PROBLEM_MEDIA_TYPE).json(problem);
}
