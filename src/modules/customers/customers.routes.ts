import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, withMeta } from '../../http/schemas.js';
import { errorResponses } from '../../http/openapi.js';
import { requireAuth } from '../../http/scope.js';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { CreateCustomerBody, CustomerRecord, UpdateCustomerBody, customerProperties, type Customer } from './customer.schema.js';
import type { CustomerService } from './customers.service.js';

const CustomerResponse = withMeta(customerProperties, { title: 'CustomerResponse' });

export const customerRoutes: FastifyPluginAsyncTypebox<{ customers: CustomerService }> = async (app, { customers }) => {
  app.post(
    '/customers',
    {
      config: { scopes: ['customers:write'] },
      schema: {
        summary: 'Create a customer',
        tags: ['Customers'],
        body: CreateCustomerBody,
        response: { 201: CustomerResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const respond = (c: Customer) => withResponseMeta(request, c);
      const customer = await customers.create(requireAuth(request), request.body, idempotentResponse(request, reply, 201, respond));
      return reply.code(201).send(respond(customer));
    },
  );

  app.get(
    '/customers',
    {
      config: { scopes: ['customers:read'] },
      schema: {
        summary: 'List customers',
        tags: ['Customers'],
        querystring: listQuerySchema(20),
        response: { 200: ListOf(CustomerRecord, { title: 'CustomerList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const page = await customers.list(auth, { limit: request.query.limit, startingAfter: request.query.starting_after });
      return withResponseMeta(request, page);
    },
  );

  app.get(
    '/customers/:id',
    {
      config: { scopes: ['customers:read'] },
      schema: {
        summary: 'Retrieve a customer',
        tags: ['Customers'],
        params: IdParams,
        response: { 200: CustomerResponse, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => withResponseMeta(request, await customers.get(requireAuth(request), request.params.id)),
  );

  app.post(
    '/customers/:id',
    {
      config: { scopes: ['customers:write'] },
      schema: {
        summary: 'Update a customer',
        description: 'Changes the fields sent and keeps the others; `null` clears a field; `metadata` replaces the whole object.',
        tags: ['Customers'],
        params: IdParams,
        body: UpdateCustomerBody,
        response: { 200: CustomerResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const respond = (c: Customer) => withResponseMeta(request, c);
      const commitWith = idempotentResponse(request, reply, 200, respond);
      return respond(await customers.update(requireAuth(request), request.params.id, request.body, commitWith));
    },
  );
};
