/**
 * `payments-sdk db schema`: prints the SQL of the table a Postgres store keeps in the merchant's
 * database, for merchants who run migrations with their own tool (Prisma, Drizzle, Knex,
 * node-pg-migrate). The same SQL that `postgresStore(db).migrate()` runs; nothing here connects to
 * a database.
 */
import type { Command } from 'commander';
import { schemaSql } from '../stores/postgres/statements.js';
import { DEFAULT_TABLE, tableName } from '../stores/postgres/table-name.js';
import { CliError } from './exit-codes.js';
import type { GlobalOptions } from './global-options.js';
import { printJson } from './output.js';
import { storeTargetOf, storeUrlFrom } from './store-url.js';

interface SchemaOptions {
  table: string;
  store?: string;
}

/** Registers `db` and its subcommands on the program. */
export function registerDb(program: Command): void {
  const db = program.command('db').description("the SDK's table in your Postgres");
  db.command('schema')
    .description('print the SQL of the Postgres store table (CREATE TABLE IF NOT EXISTS), for your own migration tool')
    .option('--table <name>', 'the table, as given to postgresStore(db, { table }): a name or schema.name', DEFAULT_TABLE)
    .option(
      '--store <url>',
      'a postgres:// URL, to check that the store named is a Postgres one (default: PAYMENTS_STORE_URL); nothing connects',
    )
    .action((options: SchemaOptions, command: Command) => {
      const storeUrl = storeUrlFrom(options.store);
      if (storeUrl && storeTargetOf(storeUrl).kind !== 'postgres')
        throw new CliError(
          `${storeUrl.source} names a ${storeTargetOf(storeUrl).kind} store: only a Postgres store has a schema to print.`,
        );
      const named = tableName(options.table, undefined);
      if (!named.ok) throw new CliError(`--table: ${named.problems.join('; ')}.`);
      const sql = schemaSql(named.value.sql);
      if (command.optsWithGlobals<GlobalOptions>().json) printJson({ table: named.value.sql, sql });
      else process.stdout.write(sql);
    });
}
