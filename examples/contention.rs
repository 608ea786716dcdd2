//! N clients contending for one optimistic-concurrency row (the model of AWS's published backoff
//! simulator), with retryline's backoff and budgets: `src/contention`.
//!
//!   cargo run --release --example contention -- [--json] [--runs 100] [--clients 10,20,…] [--seed 1]
//!
//! Prints the mean calls (writes) and completion time per client count and strategy: a table,
//! or with `--json` an array of `{ "clients", "strategy", "calls", "completionMs", "gaveUp" }`.

use retryline::contention::{means, Means, Strategy};

struct Args {
    json: bool,
    runs: u32,
    clients: Vec<u32>,
    seed: u64,
}

fn parse() -> Result<Args, String> {
    let mut args = Args { json: false, runs: 100, clients: (1..=19).map(|i| i * 10).collect(), seed: 1 };
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        let mut value = || given.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--json" => args.json = true,
            "--runs" => args.runs = value()?.parse().map_err(|_| "--runs must be a whole number".to_owned())?,
            "--seed" => args.seed = value()?.parse().map_err(|_| "--seed must be a whole number".to_owned())?,
            "--clients" => {
                args.clients = value()?
                    .split(',')
                    .map(|c| c.trim().parse().map_err(|_| format!("--clients: {c:?} is not a whole number")))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if args.runs == 0 || args.clients.contains(&0) {
        return Err("--runs and every --clients count must be at least 1".to_owned());
    }
    Ok(args)
}

fn json(rows: &[Means]) -> String {
    let items: Vec<String> = rows
        .iter()
        .map(|m| {
            format!(
                r#"{{"clients":{},"strategy":"{}","calls":{:.2},"completionMs":{:.1},"gaveUp":{:.2}}}"#,
                m.clients,
                m.strategy.name(),
                m.calls,
                m.completion_ms,
                m.gave_up
            )
        })
        .collect();
    format!("[{}]", items.join(",\n "))
}

fn main() {
    let args = match parse() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("contention: {message}");
            std::process::exit(2);
        }
    };
    let rows: Vec<Means> = args
        .clients
        .iter()
        .flat_map(|&clients| Strategy::ALL.into_iter().map(move |s| (clients, s)))
        .map(|(clients, strategy)| means(clients, strategy, args.runs, args.seed))
        .collect();
    if args.json {
        println!("{}", json(&rows));
        return;
    }
    println!("{:>7}  {:<13} {:>10} {:>14} {:>8}", "clients", "strategy", "calls", "completion ms", "gave up");
    for m in &rows {
        println!(
            "{:>7}  {:<13} {:>10.1} {:>14.1} {:>8.1}",
            m.clients,
            m.strategy.name(),
            m.calls,
            m.completion_ms,
            m.gave_up
        );
    }
}
