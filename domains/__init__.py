"""tauplay's built-in domains: one package per domain (data model, tools, policy, generator, tasks)."""
