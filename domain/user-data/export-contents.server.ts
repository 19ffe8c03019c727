import type { DB } from '#platform/db.server.ts'
import type { ZipEntry } from '#platform/zip-stream.server.ts'
import { exportedPrintOrders } from '#domain/prints/print-order-privacy.server.ts'

/**
 * What a user's data export holds (decision 0038): profile.json (no password hash), the credit
 * ledger as CSV, tasks.json with every version, pets.json, payment-proofs.json, print-orders.json
 * (with each order's recipient), and every stored file the user still has under `files/<storage
 * key>`: uploads, results, pet photos, the avatar
 * and the screenshots of their own payment proofs. The JSON names each file by that path.
 */
export async function exportEntries(db: DB, userId: string): Promise<ZipEntry[]> {
  const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow()
  const [ledger, tasks, versions, pets, petPhotos, proofs] = await Promise.all([
    db
      .selectFrom('credit_transactions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db.selectFrom('generation_tasks').selectAll().where('user_id', '=', userId).orderBy('created_at').execute(),
    db
      .selectFrom('task_versions as v')
      .innerJoin('generation_tasks as t', 't.id', 'v.task_id')
      .selectAll('v')
      .where('t.user_id', '=', userId)
      .orderBy('v.version_index')
      .execute(),
    db.selectFrom('pets').selectAll().where('user_id', '=', userId).orderBy('created_at').execute(),
    db
      .selectFrom('pet_photos as p')
      .innerJoin('pets', 'pets.id', 'p.pet_id')
      .selectAll('p')
      .where('pets.user_id', '=', userId)
      .orderBy('p.position')
      .execute(),
    db.selectFrom('payment_proofs').selectAll().where('user_id', '=', userId).orderBy('created_at').execute(),
  ])
  const keys = new Set<string>()
  const file = (key: string | null) => {
    if (!key) return null
    keys.add(key)
    return `files/${key}`
  }

  const profile = {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    credits: user.credits,
    emailVerified: user.email_verified,
    googleLinked: user.google_id !== null,
    hasPassword: user.password_hash !== null,
    taskEmails: user.task_emails,
    createdAt: user.created_at.toISOString(),
    lastLoginAt: user.last_login_at?.toISOString() ?? null,
    avatar: file(user.profile_picture),
  }
  const taskList = tasks.map((task) => ({
    id: task.id,
    type: task.kind,
    source: task.source,
    status: task.status,
    params: task.params,
    creditCost: task.credit_cost,
    variants: task.variants,
    favouriteIndex: task.favourite_index,
    parentTaskId: task.parent_task_id,
    error: task.error,
    createdAt: task.created_at.toISOString(),
    finishedAt: task.finished_at?.toISOString() ?? null,
    expiresAt: task.expires_at?.toISOString() ?? null,
    photos: task.input_keys.map(file),
    result: file(task.result_key),
    versions: versions
      .filter((version) => version.task_id === task.id)
      .map((version) => ({
        index: version.version_index,
        width: version.width,
        height: version.height,
        provider: version.provider,
        model: version.model,
        file: file(version.key),
      })),
  }))
  const petList = pets.map((pet) => ({
    id: pet.id,
    name: pet.name,
    species: pet.species,
    breed: pet.breed,
    colours: pet.colours,
    markings: pet.markings,
    createdAt: pet.created_at.toISOString(),
    photos: petPhotos.filter((photo) => photo.pet_id === pet.id).map((photo) => file(photo.key)),
  }))
  const proofList = proofs.map((proof) => ({
    id: proof.id,
    paymentMethod: proof.payment_method,
    transactionId: proof.transaction_id,
    creditAmount: proof.credit_amount,
    amountCents: proof.amount_cents,
    note: proof.note,
    status: proof.status,
    reviewReason: proof.review_reason,
    createdAt: proof.created_at.toISOString(),
    reviewedAt: proof.reviewed_at?.toISOString() ?? null,
    screenshot: file(proof.screenshot_key),
  }))
  const ledgerCsv = toCsv(
    [
      'id',
      'created_at',
      'type',
      'amount',
      'description',
      'task_id',
      'payment_proof_id',
      'version_index',
      'print_order_id',
    ],
    ledger.map((row) => [
      row.id,
      row.created_at.toISOString(),
      row.type,
      row.amount,
      row.description,
      row.task_id,
      row.payment_proof_id,
      row.version_index,
      row.print_order_id,
    ]),
  )

  return [
    json('profile.json', profile),
    { name: 'credit-ledger.csv', bytes: Buffer.from(ledgerCsv) },
    json('tasks.json', taskList),
    json('pets.json', petList),
    json('payment-proofs.json', proofList),
    json('print-orders.json', await exportedPrintOrders(db, userId)),
    ...[...keys].map((key) => ({ name: `files/${key}`, key })),
  ]
}

const json = (name: string, value: unknown): ZipEntry => ({
  name,
  bytes: Buffer.from(`${JSON.stringify(value, null, 2)}\n`),
})

/** RFC 4180: every field quoted, quotes doubled, CRLF line ends. */
function toCsv(header: string[], rows: Array<Array<string | number | null>>) {
  const line = (fields: Array<string | number | null>) =>
    fields.map((field) => `"${String(field ?? '').replaceAll('"', '""')}"`).join(',')
  return [line(header), ...rows.map(line)].join('\r\n') + '\r\n'
}
