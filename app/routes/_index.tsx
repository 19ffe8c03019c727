export default function Index() {
  return (
    <section className="hero">
      <h1>Pawtrait</h1>
      <p>Turn your pet photos into AI-generated portraits.</p>
    </section>
  )
}
