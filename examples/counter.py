import kubedra.driver as dra


class Counters(dra.Driver):
    """Fake counters: a prepared one shows up in the container's environment."""

    name = "counter.example.com"

    def prepare_claim(self, claim):
        return [device.prepared(env={"COUNTER": device.device}) for device in claim.devices]


devices = [{"name": f"counter-{i}", "attributes": {"index": {"int": i}}} for i in range(4)]

if __name__ == "__main__":
    raise SystemExit(dra.main(Counters(), dra.Pool(devices=devices)))
