# Dockerfile - tcpxo-agent image: build on Debian 12, run on Debian 12 slim as 65532 with only the runtime libraries.
#   docker build -t ghcr.io/aicr/tcpxo-agent:0.1.0 .
# tests/integration/test_image_libs.sh checks that the runtime install line provides every library the binary links.

FROM debian:12 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential pkg-config \
      libnl-3-dev libnl-route-3-dev libudev-dev libcurl4-openssl-dev libcjson-dev libyaml-dev libmicrohttpd-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make WERROR=1 \
 && install -D -m 0755 -s build/tcpxo-agent /out/usr/local/bin/tcpxo-agent \
 && install -D -m 0755 -s build/kubectl-fabric /out/usr/local/bin/kubectl-fabric

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libnl-3-200 libnl-route-3-200 libudev1 libcurl4 libcjson1 libyaml-0-2 libmicrohttpd12 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr/local/bin/tcpxo-agent /usr/local/bin/tcpxo-agent
# The kubectl plugin (kubectl fabric): links only libc, cJSON and libyaml; for copying out to a Linux workstation
# (elsewhere, `make build/kubectl-fabric` builds it: portable C).
COPY --from=build /out/usr/local/bin/kubectl-fabric /usr/local/bin/kubectl-fabric
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/tcpxo-agent"]
