/**
 * The type of `webhook_event_log.request_headers` and `response_headers`, named in
 * `prisma/schema/webhooks.prisma` and written into the generated client by prisma-json-types-generator.
 */
declare global {
  namespace PrismaJson {
    /** {name: [values]}, as sent or as received (Node's `headersDistinct`). */
    type HttpHeaders = Record<string, string[]>;
  }
}

export {};
