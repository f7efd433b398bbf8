// The yardstick: a bare Fastify endpoint that parses a JSON body and answers JSON, nothing else.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/v1/payment-intents', async (request, reply) => reply.code(201).send({ ok: true, received: request.body }));
const port = Number(process.env['PORT'] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
