import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { ListOf } from '../../http/schemas.js';
import { StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import * as service from './reports.service.js';

const date = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', 'x-message': 'must be a date YYYY-MM-DD', description });

const ReportQuery = Type.Object(
  {
    from: Type.Optional(date('First day of the window (UTC, inclusive); default 30 days before today')),
    to: Type.Optional(date('Last day of the window (UTC, inclusive); default today. At most 366 days after from')),
    format: StringEnum(['json', 'csv'] as const, { default: 'json', description: '`csv` answers the whole window as one attachment' }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 100, description: 'JSON only: 1 to 200, default 100' }),
    starting_after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'JSON only: the `id` of the last row of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

const nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const time = () => Type.String({ format: 'date-time' });

const PaymentReportRow = Type.Object(
  {
    id: Type.String({ description: "The payment intent's id" }),
    created_at: time(),
    paid_at: time(),
    status: Type.String({ description: '`paid`, or `refunded` once refunded' }),
    amount: Type.String(),
    currency: Type.String(),
    settlement_currency: Type.String(),
    pay_amount: Type.String(),
    payment_method: nullable(Type.String()),
    merchant_reference: nullable(Type.String()),
  },
  { title: 'PaymentReportRow' },
);

const SettlementReportRow = Type.Object(
  {
    id: Type.String({ description: "The settlement's id" }),
    payment_intent: Type.String(),
    asset: Type.String(),
    amount: nullable(Type.String()),
    status: Type.String(),
    settled_at: time(),
    available_at: nullable(time()),
  },
  { title: 'SettlementReportRow' },
);

const CSV_NOTE =
  'With `format=csv`: `text/csv` with a header row, streamed as the attachment `<report>_<from>_<to>.csv`; more rows than the export ceiling answer 400 `report_too_large`.';

export const reportRoutes: FastifyPluginAsyncTypebox<{ reports: service.ReportService }> = async (app, { reports }) => {
  for (const [path, kind, row, title] of [
    ['/reports/payments', service.PAYMENTS_REPORT, PaymentReportRow, 'Paid payments'],
    ['/reports/settlements', service.SETTLEMENTS_REPORT, SettlementReportRow, 'Settlements'],
  ] as const) {
    app.get(
      path,
      {
        config: { scopes: ['reports:read'] },
        schema: {
          summary: `${title} report`,
          description: `${title} in a window of UTC dates by the merchant's clock, newest first. ${CSV_NOTE}`,
          tags: ['Reports'],
          querystring: ReportQuery,
          response: { 200: ListOf(row, { title: `${title.replace(' ', '')}Report` }), ...errorResponses(400, 401, 403, 429) },
        },
      },
      async (request, reply) => {
        const scope = requireAuth(request);
        const q = request.query;
        if (q.format === 'csv') {
          const csv = await reports.csv(kind as typeof service.PAYMENTS_REPORT, scope, q, (err) =>
            request.log.warn({ err, reqId: request.id }, 'CSV report stream ended early'),
          );
          return reply
            .header('content-disposition', `attachment; filename="${csv.filename}"`)
            .header('cache-control', 'no-store')
            .type('text/csv; charset=utf-8')
            .send(csv.stream as never);
        }
        const page = await reports.page(kind as typeof service.PAYMENTS_REPORT, scope, q);
        return withResponseMeta(request, page);
      },
    );
  }
};
