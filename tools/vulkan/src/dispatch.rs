//! One dispatch on a chosen device: logical device with exactly the enabled features,
//! host-visible coherent storage buffers, descriptor set 0, a compute pipeline, one
//! command buffer, a fence; then the buffers are copied back.

use crate::device::Chosen;
use crate::instance::Instance;
use crate::{Buffer, Error, Kernel, failed};
use ash::vk;
use std::time::Duration;

/// Every object of a run, destroyed in reverse order by `Drop` (unless abandoned).
struct Objects {
    device: ash::Device,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    shader: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    cmd_pool: vk::CommandPool,
    fence: vk::Fence,
}

impl Drop for Objects {
    fn drop(&mut self) {
        // SAFETY: every handle was created from `device`, is destroyed once, and no work
        // is pending (the fence was waited for, or nothing was submitted); null handles
        // are ignored by Vulkan.
        unsafe {
            let d = &self.device;
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.cmd_pool, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.shader, None);
            for &(b, m) in self.buffers.iter().rev() {
                d.destroy_buffer(b, None);
                d.free_memory(m, None);
            }
            d.destroy_device(None);
        }
    }
}

fn create_device(inst: &Instance, c: &Chosen) -> Result<ash::Device, Error> {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(c.queue_family)
        .queue_priorities(&prio)];
    let ext_ptrs: Vec<_> = c.extensions.iter().map(|e| e.as_ptr()).collect();
    let mut en = c.enable.clone();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().subgroup_size_control(true);
    let mut ssc =
        vk::PhysicalDeviceSubgroupSizeControlFeatures::default().subgroup_size_control(true);
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .features(en.core)
        .push_next(&mut en.v11)
        .push_next(&mut en.v12);
    if let Some(f) = en.float_atomics.as_mut() {
        f2 = f2.push_next(f);
    }
    if let Some(f) = en.float_atomics2.as_mut() {
        f2 = f2.push_next(f);
    }
    if c.required_subgroup_size.is_some() {
        if c.api_version >= vk::API_VERSION_1_3 && inst.api_version >= vk::API_VERSION_1_3 {
            f2 = f2.push_next(&mut v13);
        } else {
            f2 = f2.push_next(&mut ssc);
        }
    }
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&ext_ptrs)
        .push_next(&mut f2);
    // SAFETY: `info` and its chain live until the call returns.
    unsafe { inst.raw.create_device(c.physical, &info, None) }.map_err(|r| match r {
        vk::Result::ERROR_FEATURE_NOT_PRESENT | vk::Result::ERROR_EXTENSION_NOT_PRESENT => {
            Error::Unsupported(format!("vkCreateDevice on {}: {r:?}", c.info.name))
        }
        r => failed("vkCreateDevice", r),
    })
}

fn memory_type(c: &Chosen, bits: u32) -> Option<u32> {
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    (0..c.memory.memory_type_count).find(|&i| {
        bits & (1 << i) != 0
            && c.memory.memory_types[i as usize]
                .property_flags
                .contains(want)
    })
}

/// Runs the dispatch; on `Err((e, true))` work may still be running on the device and
/// everything was deliberately leaked (the caller must not destroy the instance).
pub fn run(
    inst: &Instance,
    c: &Chosen,
    k: &Kernel<'_>,
    buffers: &mut [Buffer],
    timeout: Duration,
) -> Result<(), (Error, bool)> {
    let device = create_device(inst, c).map_err(|e| (e, false))?;
    let mut o = Objects {
        device,
        buffers: Vec::new(),
        shader: vk::ShaderModule::null(),
        set_layout: vk::DescriptorSetLayout::null(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
        pool: vk::DescriptorPool::null(),
        cmd_pool: vk::CommandPool::null(),
        fence: vk::Fence::null(),
    };
    record_and_submit(&mut o, c, k, buffers).map_err(|e| (e, false))?;
    // SAFETY: the fence belongs to the device and was submitted with the work.
    match unsafe {
        o.device.wait_for_fences(
            &[o.fence],
            true,
            timeout.as_nanos().min(u64::MAX as u128) as u64,
        )
    } {
        Ok(()) => {}
        Err(vk::Result::TIMEOUT) => {
            std::mem::forget(o);
            return Err((
                Error::Failed(format!(
                    "the dispatch did not finish within {} s",
                    timeout.as_secs()
                )),
                true,
            ));
        }
        Err(r) => return Err((failed("vkWaitForFences", r), false)),
    }
    for (b, &(_, mem)) in buffers.iter_mut().zip(&o.buffers) {
        // SAFETY: host-visible coherent memory of at least `b.data.len()` bytes, mapped
        // for the copy only; the GPU is done with it (fence waited, barrier to HOST).
        unsafe {
            let p = o
                .device
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(|r| (failed("vkMapMemory", r), false))?;
            std::ptr::copy_nonoverlapping(p as *const u8, b.data.as_mut_ptr(), b.data.len());
            o.device.unmap_memory(mem);
        }
    }
    Ok(())
}

fn record_and_submit(
    o: &mut Objects,
    c: &Chosen,
    k: &Kernel<'_>,
    buffers: &[Buffer],
) -> Result<(), Error> {
    let d = o.device.clone();
    // Buffers, filled through a mapping.
    for b in buffers {
        let size = b.data.len() as u64;
        if size > c.max_storage_buffer_range as u64 {
            return Err(Error::Unsupported(format!(
                "binding {} has {size} bytes; the device's maxStorageBufferRange is {}",
                b.binding, c.max_storage_buffer_range
            )));
        }
        // SAFETY: creation calls on a live device with infos built here; each created
        // handle is recorded in `o` at once so Drop frees it on any later error.
        unsafe {
            let buf = d
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .map_err(|r| failed("vkCreateBuffer", r))?;
            o.buffers.push((buf, vk::DeviceMemory::null()));
            let req = d.get_buffer_memory_requirements(buf);
            let ty = memory_type(c, req.memory_type_bits).ok_or_else(|| {
                Error::Unsupported(
                    "no host-visible coherent memory type for a storage buffer".into(),
                )
            })?;
            let mem = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty),
                    None,
                )
                .map_err(|r| failed("vkAllocateMemory", r))?;
            o.buffers.last_mut().expect("just pushed").1 = mem;
            d.bind_buffer_memory(buf, mem, 0)
                .map_err(|r| failed("vkBindBufferMemory", r))?;
            let p = d
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(|r| failed("vkMapMemory", r))?;
            std::ptr::copy_nonoverlapping(b.data.as_ptr(), p as *mut u8, b.data.len());
            d.unmap_memory(mem);
        }
    }
    let bindings: Vec<_> = buffers
        .iter()
        .map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    // SAFETY: as above: creation calls whose handles go into `o` immediately.
    unsafe {
        o.shader = d
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(k.spirv), None)
            .map_err(|r| failed("vkCreateShaderModule", r))?;
        o.set_layout = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .map_err(|r| failed("vkCreateDescriptorSetLayout", r))?;
        o.layout = d
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&[o.set_layout]),
                None,
            )
            .map_err(|r| failed("vkCreatePipelineLayout", r))?;
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(c.required_subgroup_size.unwrap_or(0));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(o.shader)
            .name(c"main");
        if c.required_subgroup_size.is_some() {
            stage = stage.push_next(&mut required);
        }
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(o.layout);
        o.pipeline = d
            .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, r)| failed("vkCreateComputePipelines", r))?[0];
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(buffers.len().max(1) as u32)];
        o.pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
            .map_err(|r| failed("vkCreateDescriptorPool", r))?;
        let set = d
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(o.pool)
                    .set_layouts(&[o.set_layout]),
            )
            .map_err(|r| failed("vkAllocateDescriptorSets", r))?[0];
        let infos: Vec<_> = buffers
            .iter()
            .zip(&o.buffers)
            .map(|(b, &(buf, _))| {
                vk::DescriptorBufferInfo::default()
                    .buffer(buf)
                    .offset(0)
                    .range(b.data.len() as u64)
            })
            .collect();
        let writes: Vec<_> = buffers
            .iter()
            .zip(&infos)
            .map(|(b, i)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(b.binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(std::slice::from_ref(i))
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);
        o.cmd_pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(c.queue_family),
                None,
            )
            .map_err(|r| failed("vkCreateCommandPool", r))?;
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(o.cmd_pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )
            .map_err(|r| failed("vkAllocateCommandBuffers", r))?[0];
        d.begin_command_buffer(
            cb,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .map_err(|r| failed("vkBeginCommandBuffer", r))?;
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, o.pipeline);
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, o.layout, 0, &[set], &[]);
        d.cmd_dispatch(cb, k.groups[0], k.groups[1], k.groups[2]);
        let to_host = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[to_host],
            &[],
            &[],
        );
        d.end_command_buffer(cb)
            .map_err(|r| failed("vkEndCommandBuffer", r))?;
        o.fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(|r| failed("vkCreateFence", r))?;
        let queue = d.get_device_queue(c.queue_family, 0);
        let cbs = [cb];
        d.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            o.fence,
        )
        .map_err(|r| failed("vkQueueSubmit", r))?;
    }
    Ok(())
}
