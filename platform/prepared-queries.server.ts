import { CompiledQuery, type Compilable } from 'kysely'
import { preparedStatement, type DB, type Tx } from './db.server.ts'

/**
 * Runs a query as a prepared statement (preparedStatement: it must name its columns), for one run
 * on every request whose text does not depend on its values: the database parses it once per
 * connection and may keep one plan for it.
 */
export async function executePrepared<Row>(db: DB | Tx, query: Compilable<Row>) {
  const compiled = query.compile()
  preparedStatement(compiled.sql)
  return (await db.executeQuery(compiled)).rows
}

/** What `build` gets in place of a value the first time: found again among the compiled parameters. */
class StandIn {
  readonly position: number
  constructor(position: number) {
    this.position = position
  }
}

/**
 * A query that Kysely builds and compiles once, then runs with new values each time, as a prepared
 * statement (executePrepared). For a small query run on every request (a task's status poll),
 * building, compiling and planning it cost more CPU than its answer.
 * `build` must give the query the same shape whatever the values: each value is a plain operand
 * (`where('t.id', '=', taskId)`), never a list or a condition chosen by it. Each run puts the values
 * where their stand-ins ended up among the compiled parameters.
 */
export function compiledOnce<Values extends unknown[], Row>(build: (db: DB, ...values: Values) => Compilable<Row>) {
  let compiled: { sql: string; parameters: readonly unknown[] } | undefined
  return async (db: DB, ...values: Values): Promise<Row | undefined> => {
    compiled ??= compile(db, build, values.length)
    const parameters = compiled.parameters.map((parameter) =>
      parameter instanceof StandIn ? values[parameter.position] : parameter,
    )
    const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters))
    return rows[0]
  }
}

function compile<Values extends unknown[], Row>(
  db: DB,
  build: (db: DB, ...values: Values) => Compilable<Row>,
  count: number,
) {
  const standIns = Array.from({ length: count }, (_, position) => new StandIn(position))
  const { sql, parameters } = build(db, ...(standIns as Values)).compile()
  const placed = new Set(parameters.filter((parameter) => parameter instanceof StandIn))
  if (placed.size !== count) throw new Error('compiledOnce: every value must reach the query as a parameter')
  preparedStatement(sql)
  return { sql, parameters }
}
